import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit

/// `!`, `!=` and `== false` on an indexed field walk the index's complementary ranges (the
/// entries holding the value cut out), and a count that the index decides counts entries. The
/// answers are the scan's: records holding `nil` or a value of another kind in the field are where
/// the full scan puts them. Every query runs on the in-memory and file contexts (whose query cache
/// keeps the same indexes), against `StorageQuery.apply(to:)` on every entity.
@Suite("Index negations")
struct IndexNegationTests {
    /// A field that holds a string, an integer or nothing, as records written by several versions.
    enum Label: Codable, Equatable {
        case text(String)
        case number(Int)
        case none
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if container.decodeNil() {
                self = .none
            } else if let number = try? container.decode(Int.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .number(let number): try container.encode(number)
            case .none: try container.encodeNil()
            }
        }
    }

    struct Note: Storable {
        static let indexes = [
            StorageIndex("isRead"), StorageIndex("dialog", "isRead"), StorageIndex("label"), StorageIndex("score"),
        ]
        var id: Int
        var dialog: Int
        var isRead: Bool
        var label: Label
        var score: Double?
    }

    static let notes: [Note] = (0..<60).map { i in
        let labels: [Label] = [.text("a"), .number(1), .none, .text("b"), .number(0)]
        let scores: [Double?] = [nil, 1, .nan, -0.0, 0, 2.5]
        return Note(
            id: i, dialog: i % 4, isRead: i % 3 == 0, label: labels[i % labels.count], score: scores[i % scores.count])
    }

    static let filters: [StorageFilter] = [
        .not(.compare("isRead", .equal, .bool(true))),
        .compare("isRead", .notEqual, .bool(true)),
        .compare("isRead", .equal, .bool(false)),
        .not(.compare("isRead", .equal, .bool(false))),
        .and([.compare("dialog", .equal, .int(2)), .not(.compare("isRead", .equal, .bool(true)))]),
        .and([.compare("dialog", .equal, .int(2)), .compare("isRead", .notEqual, .bool(false))]),
        .compare("label", .notEqual, .string("a")),
        .not(.compare("label", .equal, .int(1))),
        .compare("label", .notEqual, .null),
        .not(.compare("label", .equal, .null)),
        .compare("score", .notEqual, .double(0)),  // -0.0 == 0: both left out
        .compare("score", .notEqual, .double(.nan)),  // not exact in the index: checked on each record
        .and([.compare("score", .notEqual, .double(1)), .compare("score", .less, .double(2))]),
    ]

    static let sorts: [[StorageSortKey]] = [
        [], [StorageSortKey("id", order: .reverse)], [StorageSortKey("isRead"), StorageSortKey("id")],
    ]

    @Test(arguments: [ContextFactory.memory, ContextFactory.fileJSON])
    func negationsAnswerAsTheScanDoes(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        try context.save(Self.notes)
        let all = try context.fetchAll(Note.self)
        for filter in Self.filters {
            for sort in Self.sorts {
                for (limit, offset) in [(nil, 0), (5, 3)] as [(Int?, Int)] {
                    let query = StorageQuery(filter: filter, sort: sort, limit: limit, offset: offset)
                    let expected = try query.apply(to: all).map(\.id)
                    let found = try context.fetch(Note.self, matching: query).map(\.id)
                    if sort.isEmpty {
                        #expect(
                            Set(found).count == found.count && (limit != nil || Set(found) == Set(expected)),
                            "\(factory) \(query)")
                        #expect(found.count == expected.count, "\(factory) \(query)")
                    } else {
                        #expect(found == expected, "\(factory) \(query)")
                    }
                }
            }
            let expectedCount = try StorageQuery(filter: filter).apply(to: all).count
            #expect(try context.count(Note.self, matching: filter) == expectedCount, "\(factory) count \(filter)")
        }
    }

    @Test(arguments: [ContextFactory.memory, ContextFactory.fileJSON])
    func aDeleteOfANegationRemovesWhatTheScanSelects(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        try context.save(Self.notes)
        let filter = StorageFilter.compare("label", .notEqual, .number(1))
        try context.delete(Note.self, matching: filter)
        #expect(
            try context.fetchAll(Note.self).map(\.id).sorted() == Self.notes.filter { $0.label == .number(1) }.map(\.id)
        )
    }

    static func plan(for filter: StorageFilter) -> IndexPlan? {
        IndexPlan.best(
            for: StorageQuery(filter: filter), conjuncts: InMemoryTable.conjuncts(of: filter),
            layout: IndexLayout(indexes: Note.indexes))
    }

    @Test func aNegationWithAnExactValueIsDecidedByTheIndex() throws {
        let layout = IndexLayout(indexes: Note.indexes)
        for filter: StorageFilter in [
            .not(.compare("isRead", .equal, .bool(true))), .compare("label", .notEqual, .null),
            .compare("score", .notEqual, .double(0)),
        ] {
            let plan = try #require(Self.plan(for: filter), "\(filter)")
            #expect(plan.excluded != nil, "\(filter)")
            #expect(plan.guarantees(filter, in: layout), "\(filter)")
        }
        let withDialog = StorageFilter.and([
            .compare("dialog", .equal, .int(2)), .not(.compare("isRead", .equal, .bool(true))),
        ])
        let plan = try #require(Self.plan(for: withDialog))
        #expect(layout.indexes[plan.index] == StorageIndex("dialog", "isRead"))
        #expect(InMemoryTable.conjuncts(of: withDialog).allSatisfy { plan.guarantees($0, in: layout) })
    }

    @Test func aNegationWithNaNIsWalkedButCheckedOnEveryRecord() throws {
        let filter = StorageFilter.compare("score", .notEqual, .double(.nan))
        let plan = Self.plan(for: filter)
        #expect(plan == nil || !(plan!.guarantees(filter, in: IndexLayout(indexes: Note.indexes))))
    }
}

extension StorageValue {
    static func number(_ value: Int) -> StorageValue { .int(Int64(value)) }
}
