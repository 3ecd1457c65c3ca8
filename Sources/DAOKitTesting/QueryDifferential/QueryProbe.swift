import DAOKit
import Foundation

/// Whether a ``QueryProbe`` type declares indexes: a differential check runs both ways, so that
/// a context's indexed and unindexed paths are both compared.
public protocol QueryProbeVariant: Sendable { static var indexes: [StorageIndex] { get } }

/// ``QueryProbe`` with indexes on `(group, date)`, `flag`, `name` and `(count, ratio)`.
public enum QueryProbeIndexed: QueryProbeVariant {
    public static var indexes: [StorageIndex] {
        [StorageIndex("group", "date"), StorageIndex("flag"), StorageIndex("name"), StorageIndex("count", "ratio")]
    }
}

/// ``QueryProbe`` without indexes.
public enum QueryProbeUnindexed: QueryProbeVariant { public static var indexes: [StorageIndex] { [] } }

/// An enum field of ``QueryProbe``, stored as its raw value.
public enum QueryProbeMood: String, Codable, CaseIterable, Sendable { case calm, busy, away }

/// A nested struct field of ``QueryProbe``, which a query reads as `nil` as a whole.
public struct QueryProbeInner: Codable, Equatable, Sendable {
    public var label: String
    public var weight: Int
}

/// An entity with a field of every kind a database stores differently (integers, reals, dates,
/// strings that differ only by Unicode normalization, UUIDs, `Bool`, `Decimal`, a `UInt64` above
/// `Int64.max`, `Data`, relative URLs), plus optionals, an enum and a nested struct: what
/// ``QueryDifferential`` queries.
public struct QueryProbe<Variant: QueryProbeVariant>: Storable, Equatable, Sendable {
    public static var indexes: [StorageIndex] { Variant.indexes }
    public var id: Int
    public var group: String
    public var name: String
    public var count: Int
    public var ratio: Double
    public var flag: Bool
    public var date: Date
    public var token: UUID
    public var note: String?
    public var score: Int?
    public var mood: QueryProbeMood
    public var inner: QueryProbeInner
    public var amount: Decimal
    public var big: UInt64
    public var bytes: Data
    public var link: URL
}

extension QueryProbe {
    /// Strings that a byte comparison and Swift's canonical equivalence see differently.
    public static var awkwardStrings: [String] {
        ["K", "\u{212A}", "k", "é", "e\u{301}", "ab", "a", "", "b", "zz", "Ω", "\u{2126}", "a\u{301}b", "ä", "B"]
    }

    /// `count` probes with ids `0..<count` and fields drawn from `generator`.
    public static func samples(_ count: Int, using generator: inout SeededGenerator) -> [Self] {
        (0..<count).map { index in
            QueryProbe(
                id: index,
                group: ["g1", "g2", "g3", "\u{212A}"].randomElement(using: &generator)!,
                name: awkwardStrings.randomElement(using: &generator)!,
                count: Int.random(in: -3...3, using: &generator),
                ratio: [-1.5, 0, -0.0, 0.5, 2, 1e300, -.infinity].randomElement(using: &generator)!,
                flag: Bool.random(using: &generator),
                date: Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0...5, using: &generator)) * 1000.5),
                token: [
                    UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
                    UUID(uuidString: "F0000000-0000-0000-0000-000000000000")!,
                    UUID(uuidString: "A0000000-0000-0000-0000-00000000000A")!,
                ].randomElement(using: &generator)!,
                note: Bool.random(using: &generator) ? nil : awkwardStrings.randomElement(using: &generator)!,
                score: Bool.random(using: &generator) ? nil : Int.random(in: 0...3, using: &generator),
                mood: QueryProbeMood.allCases.randomElement(using: &generator)!,
                inner: QueryProbeInner(
                    label: ["x", "y"].randomElement(using: &generator)!,
                    weight: Int.random(in: 0...2, using: &generator)),
                amount: [Decimal(string: "1.5")!, Decimal(10), Decimal(string: "-0.25")!].randomElement(
                    using: &generator)!,
                big: [0, 7, UInt64.max, UInt64(Int64.max) + 1].randomElement(using: &generator)!,
                bytes: [Data(), Data([1, 2]), Data([0])].randomElement(using: &generator)!,
                link: [
                    URL(string: "https://a.example/x")!,
                    URL(string: "rel/y", relativeTo: URL(string: "https://b.example/")!)!,
                ]
                .randomElement(using: &generator)!)
        }
    }
}
