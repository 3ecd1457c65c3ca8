import Foundation
import Testing

@testable import DAOKit

/// Index entries order by their values as ``IndexOrder`` does, whether a comparison is decided by
/// the keys kept inline or falls back to the values, for every mix of kinds a field can hold.
@Suite("Index entry order")
struct IndexEntryOrderTests {
    /// Values of every kind an index field may hold, with the edge cases of the inline keys:
    /// integers across the sign, dates around zero (`-0.0` among them), a NaN date, and kinds kept
    /// as themselves.
    static let fieldValues: [StorageValue] = [
        .null, .bool(false), .bool(true),
        .int(.min), .int(-2), .int(-1), .int(0), .int(1), .int(.max),
        .uint(0), .uint(3), .double(-1.5), .double(2), .double(.nan),
        .date(Date(timeIntervalSinceReferenceDate: -86_400.5)), .date(Date(timeIntervalSinceReferenceDate: -0.0)),
        .date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: 1e-300)),
        .date(Date(timeIntervalSinceReferenceDate: 86_400)), .date(.distantFuture),
        .date(Date(timeIntervalSinceReferenceDate: .nan)), .date(Date(timeIntervalSinceReferenceDate: -.infinity)),
        .string("a"), .string("b"),
    ]

    /// The order the values alone give, by ``IndexOrder``: what every comparison must agree with.
    static func valueOrder(_ lhs: [StorageValue], _ rhs: [StorageValue]) -> ComparisonResult {
        for (left, right) in zip(lhs, rhs) {
            let order = IndexOrder.compare(left, right)
            if order != .orderedSame { return order }
        }
        return .orderedSame
    }

    /// Entries of `values`, each with a record of its own (orders ascending in list order), and
    /// the records, which the caller keeps alive while it compares the entries.
    static func entries(_ values: [[StorageValue]]) -> ([IndexEntry], [InMemoryRecord]) {
        let records = values.enumerated().map { position, values in
            InMemoryRecord.make(
                key: String(position), snapshot: Empty(id: position), indexValues: values, order: UInt64(position))
        }
        return (records.map { IndexEntry(record: $0) }, records)
    }

    struct Empty: Storable {
        var id: Int
    }

    @Test func singleFieldEntriesCompareExactlyAsTheirValuesDo() {
        let (entries, records) = Self.entries(Self.fieldValues.map { [$0] })
        withExtendedLifetime(records) {
            for left in entries.indices {
                for right in entries.indices {
                    let expected = Self.valueOrder(records[left].indexValues, records[right].indexValues)
                    let less = entries[left] < entries[right]
                    switch expected {
                    case .orderedAscending:
                        #expect(less, "\(records[left].indexValues) < \(records[right].indexValues)")
                    case .orderedDescending:
                        #expect(!less, "\(records[left].indexValues) > \(records[right].indexValues)")
                    case .orderedSame:
                        #expect(less == (left < right), "equal values order by record: \(records[left].indexValues)")
                    }
                }
            }
        }
    }

    @Test func entriesOfSeveralFieldsCompareExactlyAsTheirValuesDoPastTheInlineKeys() {
        // Four fields: one more than the inline keys hold, so ties on three go to the values.
        var generator = SeededGenerator(seed: 11)
        let small: [StorageValue] = [
            .int(-1), .int(0), .bool(true), .date(Date(timeIntervalSinceReferenceDate: -0.0)),
            .date(Date(timeIntervalSinceReferenceDate: 0)), .null, .string("x"), .double(0),
        ]
        let values = (0..<400).map { _ in (0..<4).map { _ in small.randomElement(using: &generator)! } }
        let (entries, records) = Self.entries(values)
        withExtendedLifetime(records) {
            var mismatches = 0
            for left in entries.indices {
                for right in entries.indices {
                    let expected = Self.valueOrder(records[left].indexValues, records[right].indexValues)
                    let less = entries[left] < entries[right]
                    let agrees =
                        switch expected {
                        case .orderedAscending: less
                        case .orderedDescending: !less
                        case .orderedSame: less == (left < right)
                        }
                    if !agrees { mismatches += 1 }
                }
            }
            #expect(mismatches == 0)
        }
    }

    /// A sorted index needs a total order: were two values each "after" the other (as a NaN date
    /// was against every date), a search could walk past entries it should find.
    @Test func theValueOrderIsATotalOrderOverEveryKindIncludingNaN() {
        func reversed(_ order: ComparisonResult) -> ComparisonResult {
            switch order {
            case .orderedAscending: .orderedDescending
            case .orderedDescending: .orderedAscending
            case .orderedSame: .orderedSame
            }
        }
        // Foundation's `Date.description` traps on a NaN date: name dates by their seconds.
        func name(_ value: StorageValue) -> String {
            if case .date(let date) = value { return "date(\(date.timeIntervalSinceReferenceDate))" }
            return "\(value)"
        }
        let values =
            Self.fieldValues + [
                .uint(.max), .double(-.infinity), .double(.infinity), .double(-0.0), .int(-0),
                .decimal(Decimal(string: "-1.5")!), .decimal(0), .decimal(Decimal(string: "1e100")!), .decimal(.nan),
                .string(""), .string("e\u{301}"), .string("\u{E9}"), .string("f"),
                .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!),
                .uuid(UUID(uuidString: "F0000000-0000-0000-0000-000000000000")!),
                .url(URL(string: "https://a.example/x")!),
                .url(URL(string: "x", relativeTo: URL(string: "https://a.example/")!)!),
                .data(Data()), .data(Data([0])), .data(Data([1, 2])),
            ]
        for a in values {
            #expect(IndexOrder.compare(a, a) == .orderedSame, "\(name(a)) against itself")
            for b in values {
                #expect(IndexOrder.compare(a, b) == reversed(IndexOrder.compare(b, a)), "\(name(a)) against \(name(b))")
                for c in values
                where IndexOrder.compare(a, b) != .orderedDescending && IndexOrder.compare(b, c) != .orderedDescending {
                    #expect(IndexOrder.compare(a, c) != .orderedDescending, "\(name(a)) <= \(name(b)) <= \(name(c))")
                }
            }
        }
    }
}
