import DAOKit
import Foundation

/// A plain struct whose every property is a stored scalar under its own name: everything is
/// proven, so this model is where filters, sorts and pages reach the context. Its values sit on
/// the edges where a context's own comparison could part from Swift's: `Int.min`/`Int.max`,
/// `UInt64.max`, `-0.0` next to `0.0`, huge and tiny doubles, non-ASCII strings and strings that
/// are canonically equivalent but spelled with different scalars ("é" precomposed and decomposed,
/// the Kelvin sign and "K", the Ohm sign and "Ω").
enum ScalarEdgesModel: DifferentialModel {
    struct Reading: Codable, Identifiable, Equatable {
        var id: Int
        var sensor: String
        var value: Double
        var count: Int
        var big: UInt64
        var small: Int8
        var ratio: Float
        var active: Bool
    }

    struct ReadingEntity<Indexing: IndexChoice>: Storable {
        static var indexes: [StorageIndex] {
            Indexing.choose([StorageIndex("sensor", "value"), StorageIndex("count"), StorageIndex("active", "big")])
        }
        var id: Int
        var sensor: String
        var value: Double
        var count: Int
        var big: UInt64
        var small: Int8
        var ratio: Float
        var active: Bool
    }

    typealias Domain = Reading
    typealias IndexedEntity = ReadingEntity<Indexed>
    typealias PlainEntity = ReadingEntity<Unindexed>

    static let name = "scalar edges"

    static let sensors = [
        "alpha", "Alpha", "é", "e\u{301}", "\u{212A}elvin", "Kelvin", "\u{2126}", "\u{3A9}", "日本語", "straße", "", "a b",
    ]
    static let sensorFragments = ["", "e", "é", "e\u{301}", "K", "\u{212A}", "lv", "\u{3A9}", "本", "ß", "ss", "A", " "]
    static let doubles: [Double] = [
        -0.0, 0.0, 1.5, -2.25, 1e300, -1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .leastNonzeroMagnitude, 3,
    ]
    static let ints = [Int.min, Int.max, 0, -1, 1, 42, Int.min + 1]
    static let bigs: [UInt64] = [0, .max, 1 << 63, 7]
    static let smalls: [Int8] = [.min, .max, 0, -3]
    static let ratios: [Float] = [-0.0, 0.5, .greatestFiniteMagnitude, -1]

    static func values(_ random: inout SeededGenerator) -> [Reading] {
        (0..<28).map { index in
            Reading(
                id: index * 3 - 20, sensor: random.pick(sensors), value: random.pick(doubles), count: random.pick(ints),
                big: random.pick(bigs), small: random.pick(smalls), ratio: random.pick(ratios),
                active: random.chance(50))
        }
    }

    static var fields: [QueryField<Reading>] {
        [
            .comparable("id", \.id, pool: [-20, -1, 0, 1, 13, 61, 100]),
            .text("sensor", \.sensor, pool: sensors, fragments: sensorFragments),
            .comparable("value", \.value, pool: doubles),
            .comparable("count", \.count, pool: ints),
            .comparable("big", \.big, pool: bigs),
            .comparable("small", \.small, pool: smalls),
            .comparable("ratio", \.ratio, pool: ratios),
            .flag("active", \.active),
        ]
    }

    static var sorts: [QuerySort<Reading>] {
        [
            .by("sensor", \.sensor), .by("value", \.value), .by("count", \.count), .by("big", \.big),
            .by("small", \.small),
            .by("ratio", \.ratio),
            .by("sensor", \.sensor, comparator: .lexical, comparatorName: "lexical"),
        ]
    }

    static var idSort: QuerySort<Reading> { .by("id", \.id) }
}
