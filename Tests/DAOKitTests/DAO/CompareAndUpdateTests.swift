import DAOKit
import DAOKitTestSupport
import Foundation
import Synchronization
import Testing

/// `BaseDao.update(_:ifUnchangedFrom:)` writes a value only over the value the caller read: on
/// every transactional context, a change made in between is a conflict that writes nothing, and
/// of two writers that read one value, one wins.
@Suite("Compare and update: a write over a value that changed since it was read is a conflict")
struct CompareAndUpdateTests {
    struct Ticket: Codable, Identifiable, Equatable, Sendable {
        var id: String
        var title: String
        var tags: [String] = []
        var estimate: Double = 0
    }

    struct TicketEntity: Storable, Equatable, Sendable {
        var id: String
        var title: String
        var tags: [String]
        var estimate: Double
    }

    typealias TicketDao = BaseDao<Ticket, TicketEntity>

    static let factories = ContextFactory.transactional

    @Test(arguments: factories) func anUnchangedValueIsReplaced(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let tickets = TicketDao(context: fresh.context)
        let read = Ticket(id: "t", title: "draft", tags: ["a", "b"], estimate: .nan)
        try tickets.create(read)
        var edited = read
        edited.title = "final"
        try tickets.update(edited, ifUnchangedFrom: read)
        let stored = try #require(try tickets.read(id: "t"))
        #expect(stored.title == "final" && stored.tags == ["a", "b"] && stored.estimate.isNaN)
    }

    @Test(arguments: factories) func aValueChangedSinceItWasReadIsAConflictAndKeepsTheOtherChange(
        _ factory: ContextFactory
    ) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let tickets = TicketDao(context: fresh.context)
        let read = Ticket(id: "t", title: "draft")
        try tickets.create(read)
        try tickets.update(Ticket(id: "t", title: "draft", tags: ["urgent"]))  // another writer
        let error = try #require(throws: StorageError.self) {
            try tickets.update(Ticket(id: "t", title: "final"), ifUnchangedFrom: read)
        }
        #expect(error.code == .transactionConflict)
        #expect(error.key == "t")
        #expect(error.entityName == TicketEntity.entityName)
        #expect(try tickets.read(id: "t") == Ticket(id: "t", title: "draft", tags: ["urgent"]))
    }

    @Test(arguments: factories) func aValueErasedSinceItWasReadIsMissing(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let tickets = TicketDao(context: fresh.context)
        let read = Ticket(id: "t", title: "draft")
        try tickets.create(read)
        try tickets.erase(id: "t")
        let error = try #require(throws: StorageError.self) {
            try tickets.update(Ticket(id: "t", title: "final"), ifUnchangedFrom: read)
        }
        #expect(error.code == .missingID)
        #expect(try tickets.count() == 0, "not created again")
    }

    @Test(arguments: factories) func valuesWithDifferentIDsAreRefused(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let tickets = TicketDao(context: fresh.context)
        let read = Ticket(id: "t", title: "draft")
        try tickets.create(read)
        let error = try #require(throws: StorageError.self) {
            try tickets.update(Ticket(id: "u", title: "final"), ifUnchangedFrom: read)
        }
        #expect(error.code == .unsupported)
        #expect(try tickets.read() == [read])
    }

    /// Two writers read one value and each writes its own change over it: exactly one is kept,
    /// the other is told, round after round.
    @Test(arguments: factories) func ofTwoWritersOverOneReadValueExactlyOneWins(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let tickets = TicketDao(context: fresh.context)
        var read = Ticket(id: "t", title: "round 0")
        try tickets.create(read)
        for round in 1...20 {
            let outcomes = Mutex<[String]>([])
            let before = read
            DispatchQueue.concurrentPerform(iterations: 2) { writer in
                do {
                    try tickets.update(Ticket(id: "t", title: "round \(round) by \(writer)"), ifUnchangedFrom: before)
                    outcomes.withLock { $0.append("won") }
                } catch let error as StorageError where error.code == .transactionConflict {
                    outcomes.withLock { $0.append("conflict") }
                } catch {
                    outcomes.withLock { $0.append("\(error)") }
                }
            }
            #expect(outcomes.withLock { $0.sorted() } == ["conflict", "won"], "round \(round)")
            read = try #require(try tickets.read(id: "t"))
            #expect(read.title.hasPrefix("round \(round) by "))
        }
    }

    @Test(arguments: factories) func theAsyncFormComparesAlike(_ factory: ContextFactory) async throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let tickets = TicketDao(context: fresh.context)
        let read = Ticket(id: "t", title: "draft")
        try await tickets.create(read)
        try await tickets.update(Ticket(id: "t", title: "final"), ifUnchangedFrom: read)
        await #expect(throws: StorageError.self) {
            try await tickets.update(Ticket(id: "t", title: "again"), ifUnchangedFrom: read)
        }
        #expect(try await tickets.read(id: "t")?.title == "final")
    }

    @Test func aContextWithoutTransactionsIsUnsupported() throws {
        let tickets = TicketDao(context: SilentContext())
        let read = Ticket(id: "t", title: "draft")
        try tickets.create(read)
        let error = try #require(throws: StorageError.self) {
            try tickets.update(Ticket(id: "t", title: "final"), ifUnchangedFrom: read)
        }
        #expect(error.code == .unsupported)
        #expect(try tickets.read(id: "t") == read)
    }
}
