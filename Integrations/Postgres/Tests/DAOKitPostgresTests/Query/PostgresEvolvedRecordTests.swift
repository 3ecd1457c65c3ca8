import DAOKit
import DAOKitTesting
import Foundation
import Testing

@testable import DAOKitPostgres

/// Records written before a field existed (or holding `null` in it) are queried as they decode,
/// and a record that cannot be decoded fails only the queries whose stored condition selects it:
/// DAOKitTesting's ``EvolvedRecordDifferential`` on ``PostgresStorageContext``.
@Suite("Postgres records lacking a field are queried as they decode")
struct PostgresEvolvedRecordTests {
    @Test func queriesAgreeWithTheFullScan() async throws {
        let mismatches = try await Task.detached {
            var made: [PostgresStorageContext] = []
            defer { made.forEach { $0.close() } }
            return try EvolvedRecordDifferential.mismatches {
                let context = try TestServer.context()
                made.append(context)
                return context
            }
        }.value
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    @Test func anUndecodableRecordFailsOnlyTheQueriesThatSelectIt() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let mismatches = try await Task.detached { try EvolvedRecordDifferential.undecodableMismatches(in: context) }
            .value
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    @Test func aNegativePageThrowsBeforeAnySQL() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let error = try await #require(throws: StorageError.self) {
            try await context.fetch(PageProbe.self, matching: StorageQuery(limit: -1))
        }
        #expect(error.code == .invalidQuery)
    }
}

private struct PageProbe: Storable {
    var id: Int
}
