import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// A predicate that throws while it is evaluated on mapped values (a force unwrap of `nil`, an
/// index out of range) fails the query exactly as the full scan (`DomainQuery(…).apply(to:
/// dao.read())`) fails: `read(where:)` and `count(where:)` throw, and `erase(where:)` throws and
/// deletes nothing, on every shipped context.
@Suite("Predicates that throw")
struct ThrowingPredicateTests {
    struct Card: Codable, Identifiable, Equatable {
        var id: Int
        var deck: Int
        var title: String?
        var marks: [Int]
    }

    struct CardEntity: Storable {
        var id: Int
        var deck: Int
        var title: String?
        var marks: [Int]
    }

    /// Deck 1 holds a card without a title; every card of deck 2 has one and has marks.
    static let cards = [
        Card(id: 1, deck: 1, title: "ace", marks: [1]),
        Card(id: 2, deck: 1, title: nil, marks: []),
        Card(id: 3, deck: 2, title: "two", marks: [2, 2]),
        Card(id: 4, deck: 2, title: "three", marks: [3]),
    ]

    func storedCards(_ factory: ContextFactory) throws -> (BaseDao<Card, CardEntity>, () -> Void) {
        let fresh = try factory.make()
        let dao = BaseDao<Card, CardEntity>(context: fresh.context)
        try dao.persist(Self.cards)
        _ = try dao.count(where: #Predicate { $0.deck == 2 })  // proves `deck`
        return (dao, fresh.cleanUp)
    }

    /// Whether the full scan throws for `predicate`, and the error's description.
    func fullScanError(_ dao: BaseDao<Card, CardEntity>, _ predicate: Predicate<Card>) throws -> String? {
        let all = try dao.read()
        do {
            _ = try DomainQuery(predicate: predicate).apply(to: all)
            return nil
        } catch {
            return String(describing: error)
        }
    }

    /// Every query call throws what the full scan throws, and nothing is erased.
    func expectEveryCallThrowsAsTheFullScan(
        _ predicate: Predicate<Card>, on factory: ContextFactory, _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let (dao, cleanUp) = try storedCards(factory)
        defer { cleanUp() }
        let expected = try #require(try fullScanError(dao, predicate), "the full scan does not throw for \(label)")
        let calls: [(String, () throws -> Void)] = [
            ("read(where:)", { _ = try dao.read(where: predicate) }),
            (
                "read(where:sortedBy:limit:)",
                { _ = try dao.read(where: predicate, sortedBy: [SortDescriptor(\.id)], limit: 1) }
            ),
            ("count(where:)", { _ = try dao.count(where: predicate) }),
            ("erase(where:)", { try dao.erase(where: predicate) }),
        ]
        for (name, call) in calls {
            do {
                try call()
                Issue.record(
                    "\(factory) \(label) \(name) returned; the full scan throws \(expected)",
                    sourceLocation: sourceLocation)
            } catch {
                #expect(
                    String(describing: error) == expected, "\(factory) \(label) \(name)", sourceLocation: sourceLocation
                )
            }
        }
        #expect(
            try dao.count() == Self.cards.count, "\(factory) \(label): erase(where:) deleted something",
            sourceLocation: sourceLocation)
    }

    @Test(arguments: ContextFactory.everyShipped)
    func aForceUnwrapOfNilOnAMatchingValueFailsTheQuery(_ factory: ContextFactory) throws {
        // `deck == 1` is pushed down; the unwrap is evaluated on deck 1's values and hits nil.
        try expectEveryCallThrowsAsTheFullScan(
            #Predicate { $0.deck == 1 && $0.title! == "ace" }, on: factory, "deck == 1 && title!")
    }

    @Test(arguments: ContextFactory.everyShipped)
    func anIndexOutOfRangeOnAMatchingValueFailsTheQuery(_ factory: ContextFactory) throws {
        try expectEveryCallThrowsAsTheFullScan(
            #Predicate { $0.deck == 1 && $0.marks[0] > 0 }, on: factory, "deck == 1 && marks[0]")
    }

    @Test(arguments: ContextFactory.everyShipped)
    func aPredicateThatThrowsOnAValueThePushedPartLeavesOutStillThrowsAsTheFullScan(_ factory: ContextFactory) throws {
        // The full scan evaluates `title!` first, on every value, and throws on card 2 (deck 1).
        // Pushing `deck == 2` down and evaluating the predicate only on deck 2 would skip card 2
        // and answer where today's scan throws.
        try expectEveryCallThrowsAsTheFullScan(
            #Predicate { $0.title! != "joker" && $0.deck == 2 }, on: factory,
            "title! != \"joker\" && deck == 2")
    }

    @Test(arguments: ContextFactory.everyShipped)
    func aPredicateThatThrowsOnNoValueAnswersAsTheFullScan(_ factory: ContextFactory) throws {
        let (dao, cleanUp) = try storedCards(factory)
        defer { cleanUp() }
        // `&&` stops at deck 2's cards, which all have a title: nothing throws, in the scan or here.
        let predicate = #Predicate<Card> { $0.deck == 2 && $0.title! != "two" && $0.marks[0] > 0 }
        #expect(try fullScanError(dao, predicate) == nil)
        #expect(try dao.read(where: predicate).map(\.id) == [4])
        #expect(try dao.count(where: predicate) == 1)
        try dao.erase(where: predicate)
        #expect(try dao.read().map(\.id).sorted() == [1, 2, 3])
    }
}
