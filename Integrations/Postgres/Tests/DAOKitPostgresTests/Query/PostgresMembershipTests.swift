import DAOKit
import DAOKitSQL
import Foundation
import Testing

@testable import DAOKitPostgres

/// `list.contains($0.field)` as one `text[]` parameter per kind of constant, however long the list:
/// exact for every kind SQL compares, and planned as a semi-join on the list (hashed, or looked up
/// in an index), never as a comparison of every row with every constant — also once the prepared
/// statement runs on its generic plan, which does not see the list.
@Suite("Postgres membership", .timeLimit(.minutes(3)))
struct PostgresMembershipTests {
    @Test func aMembershipOfAHundredThousandConstantsIsOneParameterJoinedNotComparedRowByRow() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let items = (0..<2_000).map { Item(id: $0, number: $0 * 3, plain: $0 * 3, label: "label \($0 * 3)") }
        try await context.save(items, mode: .upsert)
        let numbers = Array(stride(from: 0, to: 200_000, by: 2))  // 100,000 constants
        let filters: [StorageFilter] = [
            .isIn("number", numbers.map { .int(Int64($0)) }),
            .isIn("plain", numbers.map { .int(Int64($0)) }),
            .isIn("label", numbers.map { .string("label \($0)") }),
        ]
        // Every item whose number is even, as a set tells it (the Swift evaluation of a list this
        // long takes longer than the test should).
        let expected = Set(numbers).intersection(items.map(\.number)).count
        #expect(expected == 1_000)
        for filter in filters {
            let translation = try await context.translation(of: StorageQuery(filter: filter), for: Item.self)
            #expect(translation.isExact)
            #expect(translation.parameters.count <= 2, "\(filter.field): one parameter per form of constant")
            // The work, not the clock: `= ANY($1)` would compare every row with every constant
            // (PostgreSQL does so even in a plan made for the list's value); the semi-join on
            // `unnest` hashes the list or looks each constant up in an index.
            for generic in [false, true] {
                let plan = try await context.plan(of: StorageQuery(filter: filter), for: Item.self, generic: generic)
                #expect(plan.contains { $0.contains("unnest") }, "\(filter.field), generic: \(generic): \(plan)")
                #expect(!plan.contains { $0.contains("ANY") }, "\(filter.field), generic: \(generic): \(plan)")
            }
            // PostgreSQL plans a prepared statement's first five runs for their values and may run
            // the later ones on a generic plan, made without them: both must answer right.
            for _ in 0..<7 {
                #expect(try await context.count(Item.self, matching: filter) == expected, "\(filter.field)")
                #expect(
                    try await context.fetch(Item.self, matching: StorageQuery(filter: filter)).count == expected,
                    "\(filter.field)")
            }
        }
    }

    @Test func aMembershipAnswersAsSwiftForEveryKindSQLCompares() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let tokens = (0..<4).map { UUID(uuidString: "00000000-0000-0000-0000-00000000000\($0)")! }
        let items = (0..<12).map { index in
            Item(
                id: index, number: index, plain: index % 4, label: "l\(index % 5)",
                ratio: [-0.0, 0.5, 2, 1e300][index % 4],
                date: Date(timeIntervalSinceReferenceDate: Double(index % 3) * 1.5), token: tokens[index % 4],
                flag: index % 2 == 0, note: index % 3 == 0 ? nil : "n\(index % 2)")
        }
        try await context.save(items, mode: .upsert)
        let filters: [StorageFilter] = [
            .isIn("number", [.int(1), .int(5), .double(7), .double(7.5), .uint(11)]),
            .isIn("ratio", [.double(0), .int(2), .double(3)]),
            .isIn(
                "date",
                [.date(Date(timeIntervalSinceReferenceDate: 1.5)), .date(Date(timeIntervalSinceReferenceDate: 9))]),
            .isIn("token", [.uuid(tokens[1]), .uuid(tokens[3])]),
            .isIn("flag", [.bool(true)]),
            .isIn("note", [.null, .string("n1")]),
            .isIn("label", [.string("l1"), .string("l4"), .string("absent")]),
            .not(.isIn("label", [.string("l1"), .string("l4")])),
            .not(.isIn("note", [.string("n1"), .string("n0")])),
        ]
        for filter in filters {
            let query = StorageQuery(filter: filter, sort: [StorageSortKey("id")])
            #expect(try await context.translation(of: query, for: Item.self).isExact, "\(filter)")
            let expected = try query.apply(to: items).map(\.id)
            #expect(try await context.fetch(Item.self, matching: query).map(\.id) == expected, "\(filter)")
            #expect(try await context.count(Item.self, matching: filter) == expected.count, "\(filter)")
        }
    }

    @Test func aMembershipOnAnIndexedFieldUsesItsIndex() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        try await context.save(
            (0..<300).map { Item(id: $0, number: $0, plain: $0, label: "label \($0)") }, mode: .upsert)
        let filters: [StorageFilter] = [
            .isIn("number", (0..<40).map { .int(Int64($0 * 7)) }),
            .isIn("label", (0..<20).map { .string("label \($0 * 7)") }),  // one by one, through the index
        ]
        for filter in filters {
            for generic in [false, true] {
                let plan = try await context.plan(of: StorageQuery(filter: filter), for: Item.self, generic: generic)
                #expect(plan.contains { $0.contains("daokit_p") }, "\(filter.field), generic: \(generic): \(plan)")
            }
        }
    }
}

extension StorageFilter {
    /// The field a membership or comparison names, for messages.
    fileprivate var field: String {
        switch self {
        case .isIn(let field, _), .compare(let field, _, _): return "\(field)"
        default: return "\(self)"
        }
    }
}

/// An item with an indexed number and label, and fields of every kind a membership compares.
private struct Item: Storable, Equatable {
    static var indexes: [StorageIndex] { [StorageIndex("number"), StorageIndex("label")] }
    var id: Int
    var number: Int
    var plain: Int
    var label: String
    var ratio: Double = 1
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var token = UUID(uuidString: "00000000-0000-0000-0000-000000000000")!
    var flag = false
    var note: String? = nil
}
