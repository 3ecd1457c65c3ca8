import DAOKit
import Foundation

extension QueryDifferential {
    /// Runs the cases of Foundation's own `Predicate` and `SortDescriptor` tests — arithmetic,
    /// division and remainder, negation, collection `count`, `filter`, `contains`,
    /// `contains(where:)`, `allSatisfy`, `min`/`max`, optional chaining and `??`, forced unwraps,
    /// `nil` tests, closed and half-open ranges (constant and per-record bounds, empty), subscripts,
    /// the conditional operator, `.true`/`.false`, string tests and comparisons — together with
    /// sorts by every kind of key (ascending, reverse, an optional key, `.lexical`
    /// strings, several keys) and pages, through ``BaseDao`` on `context`, which should
    /// be empty.
    ///
    /// Each answer (`read(where:)`, `count(where:)`, `read(where:sortedBy:limit:offset:)`) must be
    /// the one the predicate's own evaluation and `sorted(using:)` give on the same values; where
    /// that evaluation throws (a forced unwrap of `nil`, a subscript out of range), the call must
    /// throw too, never answer.
    /// - Returns: every disagreement; empty when the context agrees.
    /// - Throws: what the context throws while storing the values.
    public static func foundationCorpusMismatches(in context: any StorageContext) throws -> [Mismatch] {
        let dao = BaseDao<CorpusObject, CorpusObjectEntity>(context: context)
        try dao.persist(CorpusObject.samples)
        var mismatches: [Mismatch] = []
        func record(
            _ call: String, _ query: String, _ expected: Result<String, any Error>, _ actual: () throws -> String
        ) {
            let answer = Result { try actual() }
            switch (expected, answer) {
            case (.success(let wanted), .success(let got)) where wanted == got: return
            case (.failure, .failure): return
            default:
                mismatches.append(
                    Mismatch(
                        call: call, query: query, expected: expected.text, actual: answer.text))
            }
        }
        for (name, predicate) in CorpusObject.predicates {
            let selected = Result { try CorpusObject.samples.filter { try predicate.evaluate($0) } }
            record("read(where:)", name, selected.map { "\($0.map(\.id).sorted())" }) {
                "\(try dao.read(where: predicate).map(\.id).sorted())"
            }
            record("count(where:)", name, selected.map { "\($0.count)" }) {
                "\(try dao.count(where: predicate))"
            }
            let byA = [SortDescriptor(\CorpusObject.a, order: .reverse), SortDescriptor(\CorpusObject.id)]
            record(
                "read(where:sortedBy:limit:)", name + ", by a reverse, first 3",
                selected.map {
                    "\($0.sorted(using: byA).prefix(3).map(\.id))"
                }
            ) {
                "\(try dao.read(where: predicate, sortedBy: byA, limit: 3).map(\.id))"
            }
        }
        for (name, sort) in CorpusObject.sorts {
            let sorted = CorpusObject.samples.sorted(using: sort)
            record("read(sortedBy:)", name, .success("\(sorted.map(\.id))")) {
                "\(try dao.read(sortedBy: sort).map(\.id))"
            }
            record("read(sortedBy:limit:offset:)", name + ", 3 from the third", .success("\(sorted[2..<5].map(\.id))"))
            {
                "\(try dao.read(sortedBy: sort, limit: 3, offset: 2).map(\.id))"
            }
            let evens = #Predicate<CorpusObject> { $0.id % 2 == 0 }
            record(
                "read(where:sortedBy:)", name + ", even ids", .success("\(sorted.filter { $0.id % 2 == 0 }.map(\.id))")
            ) {
                "\(try dao.read(where: evens, sortedBy: sort).map(\.id))"
            }
        }
        return mismatches
    }
}

extension Result where Success == String {
    /// The answer, or `throws <error>`.
    fileprivate var text: String {
        switch self {
        case .success(let text): return text
        case .failure(let error): return "throws \(error)"
        }
    }
}

/// The value Foundation's predicate tests use, with a key of every kind a sort takes, an array
/// and an optional. Every sample keeps `a <= d` and `d >= 1`, so that no case traps (a range
/// whose bounds are reversed, a remainder by zero) instead of answering.
struct CorpusObject: Codable, Identifiable, Sendable {
    var id: Int
    var a: Int
    var b: String
    var c: Double
    var d: Int
    var f: Bool
    var g: [Int]
    var h: Date
    var wrapped: Int?

    static let reference = Date(timeIntervalSinceReferenceDate: 0)

    static let samples: [CorpusObject] = [
        CorpusObject(id: 1, a: 2, b: "abc", c: 6, d: 3, f: true, g: [2, 3, 5, 7, 11], h: reference, wrapped: 4),
        CorpusObject(id: 2, a: -17, b: "ABC", c: -1.5, d: 1, f: false, g: [], h: reference + 100, wrapped: nil),
        CorpusObject(id: 3, a: 6, b: "", c: 0, d: 6, f: true, g: [0, 1, 2], h: .distantPast, wrapped: 19),
        CorpusObject(id: 4, a: 3, b: "b", c: 2.1, d: 5, f: false, g: [1, 2], h: reference - 50, wrapped: -3),
        CorpusObject(id: 5, a: 4, b: "file10", c: 6.3, d: 4, f: true, g: [17, 3, 13], h: reference + 100, wrapped: 0),
        CorpusObject(id: 6, a: 0, b: "file2", c: -0.0, d: 2, f: false, g: [2, 3], h: reference + 1e9, wrapped: nil),
        CorpusObject(
            id: 7, a: 13, b: "Äpfel", c: 1e300, d: 17, f: true, g: [2, 3, 5, 11, 13, 17], h: .distantFuture, wrapped: 19
        ),
        CorpusObject(id: 8, a: 5, b: "äpfel", c: .infinity, d: 5, f: false, g: [1, 3], h: reference, wrapped: 6),
        CorpusObject(id: 9, a: -1, b: "zebra", c: -.infinity, d: 9, f: true, g: [0], h: reference - 1, wrapped: 7),
        CorpusObject(id: 10, a: 1, b: "ab", c: 3, d: 10, f: true, g: [4, 6, 8], h: reference + 0.5, wrapped: 2),
    ]

    /// Foundation's predicate cases, on this type, with a name for the report.
    static var predicates: [(String, Predicate<CorpusObject>)] {
        let compareTo = 2
        let date = Date.distantPast
        let toMatch = 4
        return [
            ("a == compareTo", #Predicate { $0.a == compareTo }),
            ("a + 2 == 4", #Predicate { $0.a + 2 == 4 }),
            ("a / 2 == 3", #Predicate { $0.a / 2 == 3 }),
            ("c / 2.1 <= 3.0", #Predicate { $0.c / 2.1 <= 3.0 }),
            ("-a == 17", #Predicate { -$0.a == 17 }),
            ("a % 3 == 1", #Predicate { $0.a % 3 == 1 }),
            ("g.count == 5", #Predicate { $0.g.count == 5 }),
            ("g.filter { $0 == d }.count > 0", #Predicate { object in object.g.filter { $0 == object.d }.count > 0 }),
            ("g.contains(a)", #Predicate { $0.g.contains($0.a) }),
            ("g.contains { $0 % a == 0 }", #Predicate { object in object.g.contains { $0 % object.d == 0 } }),
            ("g.allSatisfy { $0 % d != 0 }", #Predicate { object in object.g.allSatisfy { $0 % object.d != 0 } }),
            (
                "(wrapped.flatMap { $0 + 1 } ?? 7) % 2 == 1",
                #Predicate { ($0.wrapped.flatMap { $0 + 1 } ?? 7) % 2 == 1 }
            ),
            ("wrapped! == 19 (throws for nil)", #Predicate { $0.wrapped! == 19 }),
            ("wrapped == nil", #Predicate { $0.wrapped == nil }),
            ("wrapped != nil", #Predicate { $0.wrapped != nil }),
            ("(3...5).contains(a)", #Predicate { (3...5).contains($0.a) }),
            ("(a...d).contains(4)", #Predicate { ($0.a...$0.d).contains(4) }),
            ("(3..<5).contains(a)", #Predicate { (3..<5).contains($0.a) }),
            ("(a..<d).contains(toMatch)", #Predicate { ($0.a..<$0.d).contains(toMatch) }),
            ("(date..<date).contains(h)", #Predicate { (date..<date).contains($0.h) }),
            ("g[0] == 0 (throws for an empty g)", #Predicate { $0.g[0] == 0 }),
            ("g.max() == 3", #Predicate { $0.g.max() == 3 }),
            ("g.min() == 2", #Predicate { $0.g.min() == 2 }),
            ("true", .true),
            ("false", .false),
            ("(f ? a : d) == 5", #Predicate { ($0.f ? $0.a : $0.d) == 5 }),
            ("f", #Predicate { $0.f }),
            ("!f", #Predicate { !$0.f }),
            ("f == false", #Predicate { $0.f == false }),
            ("a > 2 && !f || c < 0", #Predicate { $0.a > 2 && !$0.f || $0.c < 0 }),
            ("!(a == 2 || d == 5)", #Predicate { !($0.a == 2 || $0.d == 5) }),
            ("c == 0 (and -0.0)", #Predicate { $0.c == 0 }),
            ("c > 2", #Predicate { $0.c > 2 }),
            ("h > reference", #Predicate { $0.h > reference }),
            ("b == \"\"", #Predicate { $0.b == "" }),
            ("b < \"b\"", #Predicate { $0.b < "b" }),
            ("b.contains(\"b\")", #Predicate { $0.b.contains("b") }),
            ("b.starts(with: \"a\")", #Predicate { $0.b.starts(with: "a") }),
            ("[1, 5, 9].contains(id)", #Predicate { [1, 5, 9].contains($0.id) }),
        ]
    }

    /// Foundation's sort cases, each ending with `id` so that ties have one order.
    static var sorts: [(String, [SortDescriptor<CorpusObject>])] {
        let id = SortDescriptor(\CorpusObject.id)
        return [
            ("a", [SortDescriptor(\.a), id]),
            ("a reverse", [SortDescriptor(\.a, order: .reverse), id]),
            ("b", [SortDescriptor(\.b), id]),
            ("b reverse", [SortDescriptor(\.b, order: .reverse), id]),
            ("b lexical", [SortDescriptor(\.b, comparator: .lexical), id]),
            ("c", [SortDescriptor(\.c), id]),
            ("h reverse", [SortDescriptor(\.h, order: .reverse), id]),
            ("wrapped", [SortDescriptor(\.wrapped), id]),
            ("wrapped reverse", [SortDescriptor(\.wrapped, order: .reverse), id]),
            ("d, then a reverse", [SortDescriptor(\.d), SortDescriptor(\.a, order: .reverse), id]),
            ("id reverse", [SortDescriptor(\.id, order: .reverse)]),
        ]
    }
}

/// What ``CorpusObject`` is stored as, with indexes on a number, a string and an optional, so
/// that contexts with indexes answer through them.
struct CorpusObjectEntity: Storable, Sendable {
    static let entityName = "FoundationCorpusObject"
    static var indexes: [StorageIndex] { [StorageIndex("a"), StorageIndex("b"), StorageIndex("wrapped")] }
    var id: Int
    var a: Int
    var b: String
    var c: Double
    var d: Int
    var f: Bool
    var g: [Int]
    var h: Date
    var wrapped: Int?
}
