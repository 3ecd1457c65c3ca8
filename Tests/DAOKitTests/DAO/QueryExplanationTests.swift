import DAOKit
import DAOKitInternals
import DAOKitTestSupport
import Foundation
import Testing

/// `BaseDao.explain` says what is pushed down, which index or SQL the context uses and what runs
/// in Swift, as values a test can check; `QueryDiagnostics.onLargeScan` hears once of a query
/// shape that reads every record of a large store, and never of one an index serves.
@Suite("Query explanations", .serialized)
struct QueryExplanationTests {
    enum Status: String, Codable, CaseIterable, Sendable { case open, blocked, done }

    struct Ticket: Codable, Identifiable, Equatable, Sendable {
        var id: Int
        var projectID: Int
        var status: Status
        var isRead: Bool
        var title: String
        var shout: String { title.uppercased() }
    }

    struct TicketEntity: Storable {
        static let indexes = [StorageIndex("projectID", "status"), StorageIndex("isRead")]
        var id: Int
        var projectID: Int
        var status: Status
        var isRead: Bool
        var title: String
    }

    static let tickets = (0..<30).map { i in
        Ticket(id: i, projectID: i % 3, status: Status.allCases[i % 3], isRead: i % 2 == 0, title: "t\(i)")
    }

    static let explained: [ContextFactory] = [.memory, .fileJSON, .sqliteFile]

    func withDao(_ factory: ContextFactory, _ body: (BaseDao<Ticket, TicketEntity>) throws -> Void) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let dao = BaseDao<Ticket, TicketEntity>(context: fresh.context)
        try dao.persist(Self.tickets)
        try body(dao)
    }

    @Test(arguments: explained)
    func aQueryOnTheCompoundIndexIsPushedDownWholeAndServedByIt(_ factory: ContextFactory) throws {
        try withDao(factory) { dao in
            let blocked = Status.blocked
            let explanation = try dao.explain(where: #Predicate { $0.projectID == 1 && $0.status == blocked }, limit: 5)
            #expect(
                explanation.storageQuery.filter
                    == .and([
                        .compare("projectID", .equal, .int(1)),
                        .compare("status", .equal, .string("blocked")),
                    ]))
            #expect(explanation.storageQuery.limit == 5)
            #expect(explanation.filterIsExact && !explanation.evaluatesPredicateInSwift && !explanation.pagesInSwift)
            let access = try #require(explanation.access)
            #expect(access.index == StorageIndex("projectID", "status"), "\(factory): \(access)")
            #expect(!access.scansEveryRecord, "\(factory): \(access)")
            #expect(explanation.description.contains("pushed down: filter"), "\(explanation)")
            #expect(explanation.description.contains("in Swift: nothing"), "\(explanation)")
            if factory.description.hasPrefix("sqlite") {
                #expect(access.statement?.contains("WHERE") == true, "\(access)")
                #expect(access.databasePlan.contains { $0.hasPrefix("SEARCH") }, "\(access)")
            }
        }
    }

    @Test(arguments: explained)
    func aPredicateOnAComputedPropertyRunsInSwiftOverAScan(_ factory: ContextFactory) throws {
        try withDao(factory) { dao in
            let explanation = try dao.explain(
                where: #Predicate { $0.shout == "T3" }, sortedBy: [SortDescriptor(\.id)], limit: 2)
            #expect(explanation.storageQuery.filter == nil)
            #expect(explanation.evaluatesPredicateInSwift && explanation.pagesInSwift && !explanation.filterIsExact)
            #expect(explanation.scansEveryRecord, "\(factory): \(explanation)")
            #expect(explanation.description.contains("in Swift: predicate"), "\(explanation)")
        }
    }

    @Test(arguments: explained)
    func aCountOfANegationIsCountedFromTheIndex(_ factory: ContextFactory) throws {
        try withDao(factory) { dao in
            let explanation = try dao.explainCount(where: #Predicate { !$0.isRead })
            #expect(explanation.countedByContext)
            let access = try #require(explanation.access)
            #expect(access.index == StorageIndex("isRead") && access.countsIndexEntries, "\(factory): \(access)")
            #expect(try dao.count(where: #Predicate { !$0.isRead }) == Self.tickets.filter { !$0.isRead }.count)
        }
    }

    @Test func aContextThatDoesNotExplainItselfIsSaidToNotExplain() throws {
        let dao = BaseDao<Ticket, TicketEntity>(context: QueryRecordingContext(InMemoryStorageContext()))
        try dao.persist(Self.tickets)
        let explanation = try dao.explain(where: #Predicate { $0.projectID == 2 })
        #expect(explanation.access == nil)
        #expect(explanation.description.contains("does not explain itself"))
    }

    @Test func aNegativePageIsRefused() throws {
        let dao = BaseDao<Ticket, TicketEntity>(context: InMemoryStorageContext())
        #expect(throws: StorageError.self) { try dao.explain(limit: -1) }
    }

    @Test func aLargeScanIsReportedOncePerShapeAndAnIndexedQueryNever() throws {
        let reports = Locked<[LargeScan]>([])
        QueryDiagnostics.largeScanThreshold = 10
        QueryDiagnostics.onLargeScan = { scan in
            if scan.entityName == TicketEntity.entityName { reports.withLock { $0.append(scan) } }
        }
        defer {
            QueryDiagnostics.onLargeScan = nil
            QueryDiagnostics.largeScanThreshold = 10_000
        }
        let dao = BaseDao<Ticket, TicketEntity>(context: InMemoryStorageContext())
        try dao.persist(Self.tickets)
        _ = try dao.read(where: #Predicate { $0.projectID == 1 })
        _ = try dao.count(where: #Predicate { !$0.isRead })
        #expect(reports.withLock { $0 }.isEmpty)
        for _ in 0..<3 { _ = try dao.read(where: #Predicate { $0.shout == "T1" }) }
        let found = reports.withLock { $0 }
        #expect(found.count == 1)
        #expect(found.first?.recordCount == Self.tickets.count)
        #expect(found.first?.description.contains("read every one of its 30 records") == true)
    }

    @Test func noScanIsReportedBelowTheThreshold() throws {
        let reports = Locked<Int>(0)
        QueryDiagnostics.largeScanThreshold = 1_000
        QueryDiagnostics.onLargeScan = { scan in
            if scan.entityName == TicketEntity.entityName { reports.withLock { $0 += 1 } }
        }
        defer {
            QueryDiagnostics.onLargeScan = nil
            QueryDiagnostics.largeScanThreshold = 10_000
        }
        let dao = BaseDao<Ticket, TicketEntity>(context: InMemoryStorageContext())
        try dao.persist(Self.tickets)
        _ = try dao.read(where: #Predicate { $0.shout == "T1" })
        #expect(reports.withLock { $0 } == 0)
    }
}
