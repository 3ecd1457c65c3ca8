import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitSQLite

/// A count of `!=` (or `!(==)`) on a column of one kind is the sum of three index ranges — `NULL`,
/// below, above — rather than a scan of every index entry, and counts what Swift counts: rows
/// holding `NULL` included, and a column holding several kinds still counted exactly (without the
/// ranges).
@Suite("SQLite negation counts")
struct SQLiteNegationCountTests {
    /// A field that holds a string or an integer, as records written by two versions.
    enum Tag: Codable, Equatable {
        case text(String)
        case number(Int)
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int.self) {
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
            }
        }
    }

    struct Note: Storable {
        static let indexes = [StorageIndex("isRead"), StorageIndex("label"), StorageIndex("tag")]
        var id: Int
        var isRead: Bool?
        var label: String?
        var tag: Tag
    }

    static let notes: [Note] = (0..<40).map { i in
        Note(
            id: i, isRead: i % 5 == 0 ? nil : i % 2 == 0, label: i % 7 == 0 ? nil : ["a", "b", "é", "e\u{301}"][i % 4],
            tag: i % 3 == 0 ? .number(i % 2) : .text(i % 2 == 0 ? "x" : "1"))
    }

    static let filters: [StorageFilter] = [
        .not(.compare("isRead", .equal, .bool(true))),
        .compare("isRead", .notEqual, .bool(false)),
        .compare("label", .notEqual, .string("é")),  // "e\u{301}" is equal to it, as in Swift
        .not(.compare("label", .equal, .string("b"))),
        .compare("tag", .notEqual, .int(1)),  // two kinds: no ranges, still exact
        .compare("missing", .notEqual, .int(1)),
    ]

    @Test func negationCountsAreTheScans() throws {
        let context = try SQLiteStorageContext()
        try context.save(Self.notes)
        let all = try context.fetchAll(Note.self)
        for filter in Self.filters {
            let expected = try StorageQuery(filter: filter).apply(to: all).count
            #expect(try context.count(Note.self, matching: filter) == expected, "\(filter)")
        }
    }

    @Test func aNegationOnAColumnOfOneKindCountsThreeIndexRanges() throws {
        let context = try SQLiteStorageContext()
        try context.save(Self.notes)
        for filter: StorageFilter in [
            .not(.compare("isRead", .equal, .bool(true))), .compare("label", .notEqual, .string("b")),
        ] {
            let plan = try context.countPlan(of: filter, for: Note.self)
            #expect(
                plan.filter { $0.hasPrefix("SEARCH") && $0.contains("COVERING INDEX") }.count == 3, "\(filter): \(plan)"
            )
            #expect(!plan.contains { $0.hasPrefix("SCAN") && $0.contains("INDEX") }, "\(filter): \(plan)")
        }
        let mixed = try context.countPlan(of: .compare("tag", .notEqual, .int(1)), for: Note.self)
        #expect(mixed.allSatisfy { !$0.hasPrefix("SEARCH") }, "\(mixed)")
    }
}
