import DAOKit
import Foundation

/// Entities for the entity-level field proof: one whose indexed fields are all plain stored
/// properties, and one per way a property can differ from what `encode(to:)` stores under its name.
/// Each is indexed on `key` and `group`, so the same queries run over all of them.
enum ProofEntities {
    struct Place: Codable, Equatable, Sendable {
        var city: String
        var zip: Int
    }

    /// Every field a stored property of a type the mapper keeps as itself, under its own name.
    struct Plain: Storable, Equatable {
        static let indexes = [StorageIndex("group", "key"), StorageIndex("place.city"), StorageIndex("note", "stamp")]
        var id: Int
        var key: Int
        var group: String
        var stamp: Date
        var token: UUID
        var price: Decimal
        var ratio: Float
        var small: UInt8
        var link: URL
        var blob: Data
        var flag: Bool
        var note: String?
        var place: Place
    }

    /// A class: reflection lists no stored properties of it.
    final class Boxed: Storable {
        static let indexes = [StorageIndex("group", "key")]
        var id: Int, key: Int, group: String
        init(id: Int, key: Int, group: String) { (self.id, self.key, self.group) = (id, key, group) }
    }

    /// `key` is computed: stored under its name by a custom `encode(to:)`, read back into `base`.
    struct Computed: Storable {
        static let indexes = [StorageIndex("group", "key")]
        var id: Int, base: Int, group: String
        var key: Int { base * 2 }
        enum CodingKeys: String, CodingKey { case id, key, group }
        init(id: Int, key: Int, group: String) { (self.id, self.base, self.group) = (id, key / 2, group) }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            (id, group) = (
                try container.decode(Int.self, forKey: .id), try container.decode(String.self, forKey: .group)
            )
            base = try container.decode(Int.self, forKey: .key) / 2
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(key, forKey: .key)
            try container.encode(group, forKey: .group)
        }
    }

    /// `CodingKeys` swap `key` and `other`: the property `key` is stored under "other".
    struct Swapped: Storable {
        static let indexes = [StorageIndex("group", "key")]
        var id: Int, key: Int, other: Int, group: String
        enum CodingKeys: String, CodingKey { case id, key = "other", other = "key", group }
    }

    /// `CodingKeys` store the property `label` under "group", and `group` under "label".
    struct Renamed: Storable {
        static let indexes = [StorageIndex("group", "key")]
        var id: Int, key: Int, group: String, label: String
        enum CodingKeys: String, CodingKey { case id, key, group = "label", label = "group" }
    }

    /// Stores `key` times ten and reads it back divided: the property is never the stored value.
    struct Transforming: Storable {
        static let indexes = [StorageIndex("group", "key")]
        var id: Int, key: Int, group: String
        enum CodingKeys: String, CodingKey { case id, key, group }
        init(id: Int, key: Int, group: String) { (self.id, self.key, self.group) = (id, key, group) }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            key = try container.decode(Int.self, forKey: .key) / 10
            group = try container.decode(String.self, forKey: .group)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(key * 10, forKey: .key)
            try container.encode(group, forKey: .group)
        }
    }

    /// Stores its `Date` as seconds since 1970, a number: the stored value is a `.double`, never a `.date`.
    struct DateAsNumber: Storable {
        static let indexes = [StorageIndex("group", "stamp")]
        var id: Int, stamp: Date, group: String
        enum CodingKeys: String, CodingKey { case id, stamp, group }
        init(id: Int, stamp: Date, group: String) { (self.id, self.stamp, self.group) = (id, stamp, group) }
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            stamp = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .stamp))
            group = try container.decode(String.self, forKey: .group)
        }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(stamp.timeIntervalSince1970, forKey: .stamp)
            try container.encode(group, forKey: .group)
        }
    }

    enum Level: String, Codable, Sendable { case low, high }

    /// `level` is an enum with a raw value: stored as its raw value, not a type kept as itself.
    struct RawEnum: Storable {
        static let indexes = [StorageIndex("level", "key")]
        var id: Int, key: Int, level: Level
    }

    /// `place.city` is reached through an optional: no stored property chain.
    struct OptionalChain: Storable {
        static let indexes = [StorageIndex("place.city")]
        var id: Int, place: Place?
    }

    static func plain(_ i: Int) -> Plain {
        Plain(
            id: i, key: (i * 7_919) % 97 - 40, group: "g\(i % 5)",
            stamp: Date(timeIntervalSinceReferenceDate: Double(i % 13) * 1.5),
            token: UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", i % 17))!,
            price: Decimal(i % 11) / 4, ratio: Float(i % 7) / 8, small: UInt8(i % 250),
            link: URL(string: "https://example.invalid/\(i % 9)")!, blob: Data([UInt8(i % 4)]), flag: i % 2 == 0,
            note: i % 3 == 0 ? nil : "n\(i % 4)", place: Place(city: ["Oslo", "Rome", "Lima"][i % 3], zip: i % 10))
    }
}
