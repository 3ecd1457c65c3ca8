import DAOKit
import Foundation

/// Random filters, sorts and pages over ``QueryProbe``'s fields — mostly constants of the field's
/// own kind, sometimes another kind or `nil`, nested `&&`, `||` and `!`, prefixes and
/// substrings, paths into the nested struct and a field no probe has.
public struct QueryProbeGenerator: Sendable {
    /// Where the choices come from.
    public var generator: SeededGenerator

    /// A generator drawing from `generator`.
    public init(generator: SeededGenerator) {
        self.generator = generator
    }

    /// The fields the queries name.
    public static let fields: [FieldPath] = [
        "group", "name", "count", "ratio", "flag", "date", "token", "note", "score", "mood",
        "inner", "inner.label", "amount", "big", "bytes", "link", "missing", "id",
    ]

    /// A constant to compare `field` with.
    public mutating func value(for field: FieldPath) -> StorageValue {
        // Mostly a constant of the field's own kind; sometimes another kind or nil.
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: return .null
        case 1:
            return [.int(1), .double(0.5), .string("K"), .bool(true), .uint(UInt64.max)].randomElement(
                using: &generator)!
        default: break
        }
        switch field.description {
        case "group": return .string(["g1", "g2", "K", "k", "\u{212A}"].randomElement(using: &generator)!)
        case "name", "note", "inner.label", "mood":
            return .string(
                (QueryProbe<QueryProbeIndexed>.awkwardStrings + ["calm", "busy", "x"]).randomElement(using: &generator)!
            )
        case "count", "score", "id": return .int(Int64.random(in: -3...4, using: &generator))
        case "ratio":
            return [.double(0), .double(-0.0), .double(0.5), .double(.nan), .int(2), .double(-.infinity)].randomElement(
                using: &generator)!
        case "flag": return .bool(Bool.random(using: &generator))
        case "date":
            return .date(
                Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...5, using: &generator)) * 1000.5))
        case "token":
            return .uuid(
                [
                    UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
                    UUID(uuidString: "A0000000-0000-0000-0000-00000000000A")!,
                ].randomElement(using: &generator)!)
        case "amount": return .decimal(Decimal(string: "1.5")!)
        case "big": return [.uint(UInt64.max), .uint(7), .int(7)].randomElement(using: &generator)!
        case "bytes": return .data(Data([1, 2]))
        case "link": return .url(URL(string: "https://a.example/x")!)
        default: return .int(1)
        }
    }

    /// A random filter.
    public mutating func filter(depth: Int = 0) -> StorageFilter {
        let field = Self.fields.randomElement(using: &generator)!
        let choice = Int.random(in: 0..<(depth > 2 ? 4 : 8), using: &generator)
        switch choice {
        case 0, 1:
            let comparison = [StorageComparison.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]
                .randomElement(using: &generator)!
            return .compare(field, comparison, value(for: field))
        case 2: return .isIn(field, (0..<Int.random(in: 0...3, using: &generator)).map { _ in value(for: field) })
        case 3:
            return Bool.random(using: &generator)
                ? .hasPrefix(field, ["", "a", "K", "e"].randomElement(using: &generator)!)
                : .contains(field, ["b", "\u{301}", "g"].randomElement(using: &generator)!)
        case 4, 5: return .and((0..<Int.random(in: 0...3, using: &generator)).map { _ in filter(depth: depth + 1) })
        case 6: return .or((0..<Int.random(in: 0...3, using: &generator)).map { _ in filter(depth: depth + 1) })
        default: return .not(filter(depth: depth + 1))
        }
    }

    /// A random query; paged or sorted ones end with the id, so that exactly one answer is right.
    public mutating func query() -> StorageQuery {
        var sort: [StorageSortKey] = (0..<Int.random(in: 0...2, using: &generator)).map { _ in
            StorageSortKey(
                Self.fields.randomElement(using: &generator)!,
                order: Bool.random(using: &generator) ? .forward : .reverse,
                stringComparator: Int.random(in: 0..<5, using: &generator) == 0
                    ? String.StandardComparator.lexical : nil)
        }
        let paged = Bool.random(using: &generator)
        // Paging needs a total order to have one right answer: the unique id breaks every tie.
        if paged || !sort.isEmpty {
            sort.append(StorageSortKey("id", order: Bool.random(using: &generator) ? .forward : .reverse))
        }
        return StorageQuery(
            filter: Int.random(in: 0..<6, using: &generator) == 0 ? nil : filter(), sort: sort,
            limit: paged ? Int.random(in: 0...12, using: &generator) : nil,
            offset: paged ? Int.random(in: 0...6, using: &generator) : 0)
    }
}
