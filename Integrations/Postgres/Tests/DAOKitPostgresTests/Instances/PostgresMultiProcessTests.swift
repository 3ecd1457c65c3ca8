import DAOKit
import DAOKitPostgres
import DAOKitPostgresTestSupport
import DAOKitTesting
import Foundation
import Testing

/// Several processes on one database, as several instances of an app behind a load balancer.
@Suite("Postgres multi-process")
struct PostgresMultiProcessTests {
    @Test func fourProcessesWritingAThousandRecordsEachLoseNothing() throws {
        let schema = TestServer.freshSchema()
        let writers = try (0..<4).map { try WriterProcess([schema, "writes", "\($0)", "1000"]) }
        for writer in writers {
            let result = writer.finish()
            #expect(result.succeeded && result.line == "done", "\(result.line)")
        }
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        let stored = Set(try context.fetchAll(FixtureNoteEntity.self).map(\.id))
        let expected = Set((0..<4).flatMap { process in (0..<1000).map { "p\(process)-\($0)" } })
        #expect(
            stored == expected,
            "missing: \(expected.subtracting(stored).count), unexpected: \(stored.subtracting(expected).count)")
    }

    @Test func racingCreatesOfTheSameIdsSucceedOnceEachAndTheOthersAreDuplicates() throws {
        let schema = TestServer.freshSchema()
        let writers = try (0..<4).map { _ in try WriterProcess([schema, "create", "200"]) }
        var created = 0
        var duplicates = 0
        for writer in writers {
            let result = writer.finish()
            #expect(result.succeeded, "\(result.line)")
            let values = WriterProcess.values(in: result.line)
            created += values["created"] ?? 0
            duplicates += values["duplicates"] ?? 0
        }
        #expect(created == 200, "each id created by exactly one process")
        #expect(duplicates == 600, "every other attempt refused as a duplicate")
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        #expect(try context.count(FixtureNoteEntity.self) == 200)
    }
}
