import DAOKit
import DAOKitPostgres
import Foundation
import Testing

/// `BaseDao.explain` on PostgreSQL says what the server would do: the statement, the server's
/// own plan for these values, the declared index it uses, and whether it reads every row.
@Suite("Postgres explain shows the statement, the server's plan and the index")
struct PostgresExplainTests {
    struct Ticket: Codable, Identifiable, Sendable {
        var id: Int
        var number: Int
        var note: String
    }

    struct TicketEntity: Storable, Sendable {
        static var indexes: [StorageIndex] { [StorageIndex("number")] }
        var id: Int
        var number: Int
        var note: String
    }

    typealias TicketDao = BaseDao<Ticket, TicketEntity>

    @Test func aSelectiveQueryOnAnIndexedFieldNamesTheIndexAndTheServersPlan() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let dao = TicketDao(context: context)
        try await dao.persist((0..<5_000).map { Ticket(id: $0, number: $0, note: "note \($0 % 7)") })
        let explanation = try await Task.detached { try dao.explain(where: #Predicate { $0.number == 4_321 }) }.value
        let access = try #require(explanation.access)
        #expect(explanation.filterIsExact)
        #expect(access.index == StorageIndex("number"), "\(access)")
        #expect(!access.scansEveryRecord, "\(access)")
        #expect(access.statement?.contains("WHERE") == true, "\(access)")
        #expect(access.databasePlan.contains { $0.contains("Index") }, "\(access)")
        #expect(try await dao.read(where: #Predicate { $0.number == 4_321 }).map(\.id) == [4_321])
    }

    @Test func aQueryNoIndexServesReadsEveryRowAndACountIsCountedByTheServer() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let dao = TicketDao(context: context)
        try await dao.persist((0..<200).map { Ticket(id: $0, number: $0, note: "note \($0 % 7)") })
        let explanation = try await Task.detached {
            try dao.explainCount(where: #Predicate { $0.note == "note 3" })
        }.value
        let access = try #require(explanation.access)
        #expect(explanation.countedByContext)
        #expect(access.index == nil, "\(access)")
        #expect(access.scansEveryRecord, "\(access)")
        #expect(access.statement?.hasPrefix("SELECT (SELECT count(*)") == true, "\(access)")
        #expect(access.databasePlan.contains { $0.contains("Seq Scan") }, "\(access)")
        #expect(try await dao.count(where: #Predicate { $0.note == "note 3" }) == 29)
    }

    @Test func explainingOnAClosedContextThrowsAStorageError() async throws {
        let context = try TestServer.context()
        context.close()
        let dao = TicketDao(context: context)
        await #expect(throws: StorageError.self) {
            try await Task.detached { try dao.explain(where: #Predicate { $0.number == 1 }) }.value
        }
    }
}
