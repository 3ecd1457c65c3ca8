import Foundation
import Testing

@testable import DAOKit

/// An equality an index range holds to one value is not checked again on the records the range
/// yields. That may change no answer: the index's order must find the same values equal as
/// Swift's `==` does, and where it does not (NaN, values of other kinds) the equality is still
/// checked. Every query here is answered through an index and compared with the scan's answer.
@Suite("Index range equalities")
struct IndexRangeEqualityTests {
    struct Sample: Storable {
        static let indexes = [StorageIndex("value"), StorageIndex("group", "value"), StorageIndex("label")]
        var id: Int
        var group: Int
        var value: Double
        var label: String?
    }

    static let samples: [Sample] = {
        let values: [Double] = [.nan, 0.0, -0.0, 1.5, .infinity, 3]
        let labels: [String?] = [nil, "é", "e\u{301}", "x"]
        return (0..<48).map { i in
            Sample(id: i, group: i % 4, value: values[i % values.count], label: labels[i % 3 == 0 ? 0 : i % 4])
        }
    }()

    static func context() throws -> InMemoryStorageContext {
        let context = InMemoryStorageContext()
        try context.save(samples)
        return context
    }

    /// What a scan answers: the query evaluated in Swift on every entity.
    static func scanned(_ filter: StorageFilter, in context: InMemoryStorageContext) throws -> [Int] {
        try StorageQuery(filter: filter).apply(to: context.fetchAll(Sample.self)).map(\.id).sorted()
    }

    static func expectScanAnswer(_ filter: StorageFilter, in context: InMemoryStorageContext) throws {
        let expected = try scanned(filter, in: context)
        let fetched = try context.fetch(Sample.self, matching: StorageQuery(filter: filter)).map(\.id).sorted()
        #expect(fetched == expected, "fetch \(filter)")
        #expect(try context.count(Sample.self, matching: filter) == expected.count, "count \(filter)")
    }

    @Test func anEqualityWithNaNMatchesNothingThoughTheIndexKeepsNaNsTogether() throws {
        let context = try Self.context()
        let onLeadingField = StorageFilter.compare("value", .equal, .double(.nan))
        let onSecondField = StorageFilter.and([
            .compare("group", .equal, .int(0)), .compare("value", .equal, .double(.nan)),
        ])
        for filter in [onLeadingField, onSecondField] {
            try Self.expectScanAnswer(filter, in: context)
            #expect(try context.count(Sample.self, matching: filter) == 0)
        }
    }

    @Test func anEqualityWithZeroMatchesBothZeroesAsSwiftDoes() throws {
        let context = try Self.context()
        for zero in [0.0, -0.0] {
            let filter = StorageFilter.and([
                .compare("group", .equal, .int(1)), .compare("value", .equal, .double(zero)),
            ])
            try Self.expectScanAnswer(filter, in: context)
            #expect(
                try context.count(Sample.self, matching: filter)
                    == Self.samples.filter { $0.group == 1 && $0.value == 0 }.count)
        }
    }

    @Test func anEqualityWithAValueOfAnotherKindAnswersAsTheScanDoes() throws {
        let context = try Self.context()
        for value in [StorageValue.double(2), .uint(2), .string("2"), .bool(true), .null] {
            try Self.expectScanAnswer(.compare("group", .equal, value), in: context)
        }
        #expect(try context.count(Sample.self, matching: .compare("group", .equal, .double(2))) == 12)
        #expect(try context.count(Sample.self, matching: .compare("group", .equal, .string("2"))) == 0)
    }

    @Test func twoEqualitiesOnOneFieldThatDisagreeMatchNothing() throws {
        let context = try Self.context()
        let filter = StorageFilter.and([.compare("group", .equal, .int(1)), .compare("group", .equal, .int(2))])
        try Self.expectScanAnswer(filter, in: context)
        #expect(try context.count(Sample.self, matching: filter) == 0)
    }

    @Test func equalitiesOnBothFieldsOfAnIndexAndTheRestOfTheFilterAreAllHonoured() throws {
        let context = try Self.context()
        let filters: [StorageFilter] = [
            .and([.compare("group", .equal, .int(3)), .compare("value", .equal, .double(1.5))]),
            .and([
                .compare("group", .equal, .int(3)), .compare("value", .equal, .double(1.5)),
                .compare("id", .greater, .int(20)),
            ]),
            .and([.compare("group", .equal, .int(2)), .not(.compare("value", .equal, .double(3)))]),
            .and([.compare("group", .equal, .int(2)), .compare("group", .greaterOrEqual, .int(1))]),
        ]
        for filter in filters { try Self.expectScanAnswer(filter, in: context) }
    }

    @Test func equalitiesWithCanonicallyEquivalentStringsAndNilMatchAsSwiftDoes() throws {
        let context = try Self.context()
        for label in [StorageValue.string("é"), .string("e\u{301}"), .null, .string("E")] {
            try Self.expectScanAnswer(.compare("label", .equal, label), in: context)
        }
        let accented = Self.samples.filter { $0.label == "é" }.count
        #expect(try context.count(Sample.self, matching: .compare("label", .equal, .string("e\u{301}"))) == accented)
    }
}
