import DAOKit
import Foundation

/// A domain struct whose `CodingKeys` swap two pairs of field names: its `givenName` is stored
/// under the entity's `familyName` and the other way round, and so are `height` and `weight`. A
/// key path that seems to read `givenName` reads the stored `familyName`, so nothing on the
/// swapped properties may be pushed down as a filter on the field of the same name; `id` and
/// `city`, not swapped, may.
enum SwappedKeysModel: DifferentialModel {
    struct Person: Codable, Identifiable, Equatable {
        var id: Int
        var givenName: String
        var familyName: String
        var height: Int
        var weight: Int
        var city: String

        enum CodingKeys: String, CodingKey {
            case id, city
            case givenName = "familyName", familyName = "givenName"
            case height = "weight", weight = "height"
        }
    }

    struct PersonEntity<Indexing: IndexChoice>: Storable {
        static var indexes: [StorageIndex] {
            Indexing.choose([StorageIndex("givenName"), StorageIndex("familyName", "height"), StorageIndex("weight")])
        }
        var id: Int
        var givenName: String
        var familyName: String
        var height: Int
        var weight: Int
        var city: String
    }

    typealias Domain = Person
    typealias IndexedEntity = PersonEntity<Indexed>
    typealias PlainEntity = PersonEntity<Unindexed>

    static let name = "swapped coding keys"

    static let names = ["Ann", "Bob", "Émile", "E\u{301}mile", "Zoë", "ann", "Øystein"]
    static let cities = ["Oslo", "Bergen", "Tromsø", "Å"]
    static let sizes = [150, 165, 180, 60, 75, 90]

    static func values(_ random: inout SeededGenerator) -> [Person] {
        (0..<26).map { index in
            Person(
                id: index, givenName: random.pick(names), familyName: random.pick(names), height: random.pick(sizes),
                weight: random.pick(sizes), city: random.pick(cities))
        }
    }

    static var fields: [QueryField<Person>] {
        [
            .comparable("id", \.id, pool: [0, 5, 12, 25, 30]),
            .text("givenName", \.givenName, pool: names, fragments: ["A", "a", "É", "E", "mile", "ø"]),
            .text("familyName", \.familyName, pool: names, fragments: ["B", "o", "Zo", "ë", "Ø"]),
            .comparable("height", \.height, pool: sizes),
            .comparable("weight", \.weight, pool: sizes),
            .text("city", \.city, pool: cities, fragments: ["O", "Tr", "ø", "Å"]),
        ]
    }

    static var sorts: [QuerySort<Person>] {
        [
            .by("givenName", \.givenName), .by("familyName", \.familyName), .by("height", \.height),
            .by("weight", \.weight),
            .by("city", \.city),
        ]
    }

    static var idSort: QuerySort<Person> { .by("id", \.id) }
}
