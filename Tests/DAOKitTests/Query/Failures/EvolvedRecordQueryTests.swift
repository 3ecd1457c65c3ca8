import DAOKit
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

/// Records written before a field existed, or holding `null` in it, are queried as they decode
/// (`decodeIfPresent(…) ?? 0` gives `0`) on every shipped context: filters, counts, sorted pages
/// and erases agree with a full scan. On SQLite a record that cannot be decoded fails only the
/// queries whose stored condition selects it.
@Suite("Records lacking a field are queried as they decode")
struct EvolvedRecordQueryTests {
    @Test(arguments: ContextFactory.everyShipped)
    func queriesAgreeWithTheFullScan(_ factory: ContextFactory) throws {
        var made: [ContextFactory.Fresh] = []
        defer { made.forEach { $0.cleanUp() } }
        let mismatches = try EvolvedRecordDifferential.mismatches {
            let fresh = try factory.make()
            made.append(fresh)
            return fresh.context
        }
        #expect(mismatches.isEmpty, "\(factory): \(mismatches.joined(separator: "\n"))")
    }

    @Test func theIssueRepro() throws {
        let fresh = try ContextFactory.sqliteFile.make()
        defer { fresh.cleanUp() }
        try fresh.context.save((1...3).map { FixtureTicketRecordV1(id: $0, title: "old") })
        let dao = BaseDao<FixtureTicket, FixtureTicketEntity>(context: fresh.context)
        try dao.persist(FixtureTicket(id: 4, title: "new", points: 8, due: nil))
        #expect(try dao.read(id: 1)?.points == 0)
        #expect(try dao.count(where: #Predicate { $0.points == 0 }) == 3)
        #expect(try dao.read(where: #Predicate { $0.points < 5 }).map(\.id).sorted() == [1, 2, 3])
        try dao.erase(where: #Predicate { $0.points == 0 })
        #expect(try dao.read().map(\.id) == [4])
    }

    @Test func anUndecodableRecordFailsOnlyTheSQLiteQueriesThatSelectIt() throws {
        let fresh = try ContextFactory.sqliteFile.make()
        defer { fresh.cleanUp() }
        let mismatches = try EvolvedRecordDifferential.undecodableMismatches(in: fresh.context)
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }
}
