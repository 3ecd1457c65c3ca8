import DAOKit
import Foundation

/// Whether a ``SQLiteQueryProbe`` table has indexes: the differential suite runs both ways.
protocol SQLiteProbeVariant { static var indexes: [StorageIndex] { get } }
enum ProbeIndexed: SQLiteProbeVariant {
    static var indexes: [StorageIndex] {
        [StorageIndex("group", "date"), StorageIndex("flag"), StorageIndex("name"), StorageIndex("count", "ratio")]
    }
}
enum ProbeUnindexed: SQLiteProbeVariant { static var indexes: [StorageIndex] { [] } }

enum ProbeMood: String, Codable, CaseIterable { case calm, busy, away }

struct ProbeInner: Codable, Equatable { var label: String; var weight: Int }

/// An entity with a field of every kind SQLite stores differently, plus optionals, an enum and
/// a nested struct: what the differential suite queries.
struct SQLiteQueryProbe<Variant: SQLiteProbeVariant>: Storable, Equatable {
    static var indexes: [StorageIndex] { Variant.indexes }
    var id: Int
    var group: String
    var name: String
    var count: Int
    var ratio: Double
    var flag: Bool
    var date: Date
    var token: UUID
    var note: String?
    var score: Int?
    var mood: ProbeMood
    var inner: ProbeInner
    var amount: Decimal
    var big: UInt64
    var bytes: Data
    var link: URL
}

/// Strings that SQL's byte comparison and Swift's canonical equivalence see differently.
let probeStrings = ["K", "\u{212A}", "k", "é", "e\u{301}", "ab", "a", "", "b", "zz", "Ω", "\u{2126}", "a\u{301}b", "ä", "B"]

extension SQLiteQueryProbe {
    static func samples(_ count: Int, using generator: inout SeededGenerator) -> [Self] {
        (0..<count).map { index in
            SQLiteQueryProbe(
                id: index,
                group: ["g1", "g2", "g3", "\u{212A}"].randomElement(using: &generator)!,
                name: probeStrings.randomElement(using: &generator)!,
                count: Int.random(in: -3...3, using: &generator),
                ratio: [-1.5, 0, -0.0, 0.5, 2, 1e300, -.infinity].randomElement(using: &generator)!,
                flag: Bool.random(using: &generator),
                date: Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...5, using: &generator)) * 1000.5),
                token: [UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, UUID(uuidString: "F0000000-0000-0000-0000-000000000000")!,
                        UUID(uuidString: "A0000000-0000-0000-0000-00000000000A")!].randomElement(using: &generator)!,
                note: Bool.random(using: &generator) ? nil : probeStrings.randomElement(using: &generator)!,
                score: Bool.random(using: &generator) ? nil : Int.random(in: 0...3, using: &generator),
                mood: ProbeMood.allCases.randomElement(using: &generator)!,
                inner: ProbeInner(label: ["x", "y"].randomElement(using: &generator)!, weight: Int.random(in: 0...2, using: &generator)),
                amount: [Decimal(string: "1.5")!, Decimal(10), Decimal(string: "-0.25")!].randomElement(using: &generator)!,
                big: [0, 7, UInt64.max, UInt64(Int64.max) + 1].randomElement(using: &generator)!,
                bytes: [Data(), Data([1, 2]), Data([0])].randomElement(using: &generator)!,
                link: [URL(string: "https://a.example/x")!, URL(string: "rel/y", relativeTo: URL(string: "https://b.example/")!)!]
                    .randomElement(using: &generator)!)
        }
    }
}

/// Random filters, sorts and pages over ``SQLiteQueryProbe``'s fields.
struct ProbeQueryGenerator {
    var generator: SeededGenerator

    static let fields: [FieldPath] = ["group", "name", "count", "ratio", "flag", "date", "token", "note", "score", "mood",
                                      "inner", "inner.label", "amount", "big", "bytes", "link", "missing", "id"]

    mutating func value(for field: FieldPath) -> StorageValue {
        // Mostly a constant of the field's own kind; sometimes another kind or nil.
        switch Int.random(in: 0..<10, using: &generator) {
        case 0: return .null
        case 1: return [.int(1), .double(0.5), .string("K"), .bool(true), .uint(UInt64.max)].randomElement(using: &generator)!
        default: break
        }
        switch field.description {
        case "group": return .string(["g1", "g2", "K", "k", "\u{212A}"].randomElement(using: &generator)!)
        case "name", "note", "inner.label", "mood": return .string((probeStrings + ["calm", "busy", "x"]).randomElement(using: &generator)!)
        case "count", "score", "id": return .int(Int64.random(in: -3...4, using: &generator))
        case "ratio": return [.double(0), .double(-0.0), .double(0.5), .double(.nan), .int(2), .double(-.infinity)].randomElement(using: &generator)!
        case "flag": return .bool(Bool.random(using: &generator))
        case "date": return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...5, using: &generator)) * 1000.5))
        case "token": return .uuid([UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, UUID(uuidString: "A0000000-0000-0000-0000-00000000000A")!].randomElement(using: &generator)!)
        case "amount": return .decimal(Decimal(string: "1.5")!)
        case "big": return [.uint(UInt64.max), .uint(7), .int(7)].randomElement(using: &generator)!
        case "bytes": return .data(Data([1, 2]))
        case "link": return .url(URL(string: "https://a.example/x")!)
        default: return .int(1)
        }
    }

    mutating func filter(depth: Int = 0) -> StorageFilter {
        let field = Self.fields.randomElement(using: &generator)!
        let choice = Int.random(in: 0..<(depth > 2 ? 4 : 8), using: &generator)
        switch choice {
        case 0, 1:
            let comparison = [StorageComparison.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].randomElement(using: &generator)!
            return .compare(field, comparison, value(for: field))
        case 2: return .isIn(field, (0..<Int.random(in: 0...3, using: &generator)).map { _ in value(for: field) })
        case 3: return Bool.random(using: &generator) ? .hasPrefix(field, ["", "a", "K", "e"].randomElement(using: &generator)!)
                                                      : .contains(field, ["b", "\u{301}", "g"].randomElement(using: &generator)!)
        case 4, 5: return .and((0..<Int.random(in: 0...3, using: &generator)).map { _ in filter(depth: depth + 1) })
        case 6: return .or((0..<Int.random(in: 0...3, using: &generator)).map { _ in filter(depth: depth + 1) })
        default: return .not(filter(depth: depth + 1))
        }
    }

    mutating func query() -> StorageQuery {
        var sort: [StorageSortKey] = (0..<Int.random(in: 0...2, using: &generator)).map { _ in
            StorageSortKey(Self.fields.randomElement(using: &generator)!, order: Bool.random(using: &generator) ? .forward : .reverse,
                           stringComparator: Int.random(in: 0..<5, using: &generator) == 0 ? String.StandardComparator.lexical : nil)
        }
        let paged = Bool.random(using: &generator)
        // Paging needs a total order to have one right answer: the unique id breaks every tie.
        if paged || !sort.isEmpty { sort.append(StorageSortKey("id", order: Bool.random(using: &generator) ? .forward : .reverse)) }
        return StorageQuery(filter: Int.random(in: 0..<6, using: &generator) == 0 ? nil : filter(), sort: sort,
                            limit: paged ? Int.random(in: 0...12, using: &generator) : nil,
                            offset: paged ? Int.random(in: 0...6, using: &generator) : 0)
    }
}
