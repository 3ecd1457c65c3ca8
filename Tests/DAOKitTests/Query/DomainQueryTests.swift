import DAOKit
import DAOKitTesting
import Foundation
import Testing

@Suite("DomainQuery")
struct DomainQueryTests {
    let values = FixtureMessage.samples(8)

    @Test func anEmptyQueryReturnsEveryValueInOrder() throws {
        #expect(try DomainQuery<FixtureMessage>().apply(to: values) == values)
    }

    @Test func sortingIsStableForTiedValues() throws {
        let query = DomainQuery<FixtureMessage>(sortedBy: [SortDescriptor(\.author)])
        let sorted = try query.apply(to: values)
        #expect(
            sorted.map(\.text) == [
                "message 0", "message 2", "message 4", "message 6",
                "message 1", "message 3", "message 5", "message 7",
            ])
    }

    @Test func aLaterDescriptorOnlyBreaksTiesOfAnEarlierOne() throws {
        let query = DomainQuery<FixtureMessage>(sortedBy: [
            SortDescriptor(\.priority), SortDescriptor(\.text, order: .reverse),
        ])
        #expect(
            try query.apply(to: values).map(\.text) == [
                "message 6", "message 3", "message 0", "message 7",
                "message 4", "message 1", "message 5", "message 2",
            ])
    }

    @Test func pagingClampsAtTheEnd() throws {
        #expect(try DomainQuery<FixtureMessage>(limit: 100).apply(to: values).count == 8)
        #expect(
            try DomainQuery<FixtureMessage>(limit: 5, offset: 6).apply(to: values).map(\.text) == [
                "message 6", "message 7",
            ])
        #expect(try DomainQuery<FixtureMessage>(offset: 8).apply(to: values).isEmpty)
        #expect(try DomainQuery<FixtureMessage>(limit: Int.max, offset: 1).apply(to: values).count == 7)
    }

    @Test func aNegativeLimitOrOffsetSetAfterInitThrowsInvalidQuery() throws {
        var query = DomainQuery<FixtureMessage>()
        query.offset = -3
        #expect(throws: StorageError.self) { try query.apply(to: values) }
        query.offset = 0
        query.limit = -1
        let error = try #require(throws: StorageError.self) { try query.apply(to: values) }
        #expect(error.kind == .invalidQuery("limit -1 is negative"))
    }

    @Test func anErrorThrownByThePredicateReachesTheCaller() throws {
        // Force-unwrapping nil inside a predicate throws when it is evaluated.
        let query = DomainQuery<Reminder>(predicate: #Predicate { $0.note! == "call" })
        #expect(try query.apply(to: [Reminder(note: "call"), Reminder(note: "write")]) == [Reminder(note: "call")])
        #expect(throws: (any Error).self) { try query.apply(to: [Reminder(note: "call"), Reminder(note: nil)]) }
    }

    @Test func aNegativeOffsetOrLimitFromInitThrowsInsteadOfTrapping() throws {
        let offset = try #require(throws: StorageError.self) {
            try DomainQuery<FixtureMessage>(offset: -1).apply(to: values)
        }
        #expect(offset.code == .invalidQuery)
        #expect(offset.description == "store: invalid query (offset -1 is negative)")
        let limit = try #require(throws: StorageError.self) {
            try DomainQuery<FixtureMessage>(limit: Int.min).apply(to: [])
        }
        #expect(limit.kind == .invalidQuery("limit \(Int.min) is negative"))
    }
}

private struct Reminder: Codable, Equatable {
    var note: String?
}
