import DAOKit
import Foundation

/// Optionals, a nested struct, optional chaining and computed properties: `note` and `priority`
/// are optional scalars (`== nil`, `!= nil`), `place` a nested struct whose stored fields are
/// paths (`place.city`), `backup` an optional nested struct read through optional chaining
/// (`$0.backup?.zip == 3`), and `urgency` and `titleLength` computed properties, which never read
/// a stored field.
enum OptionalNestedModel: DifferentialModel {
    struct Place: Codable, Equatable {
        var city: String
        var zip: Int
    }

    struct Errand: Codable, Identifiable, Equatable {
        var id: String
        var title: String
        var note: String?
        var priority: Int?
        var place: Place
        var backup: Place?
        var done: Bool

        var urgency: Int { (priority ?? 0) &* 2 &+ (done ? 0 : 1) }
        var titleLength: Int { title.count }
    }

    struct ErrandEntity<Indexing: IndexChoice>: Storable {
        static var indexes: [StorageIndex] {
            Indexing.choose([StorageIndex("place.city", "priority"), StorageIndex("done"), StorageIndex("note")])
        }
        var id: String
        var title: String
        var note: String?
        var priority: Int?
        var place: Place
        var backup: Place?
        var done: Bool
    }

    typealias Domain = Errand
    typealias IndexedEntity = ErrandEntity<Indexed>
    typealias PlainEntity = ErrandEntity<Unindexed>

    static let name = "optionals and nesting"

    static let titles = ["buy milk", "call mom", "fix bike", "Café", "cafe\u{301}", ""]
    static let notes = ["soon", "later", "", "é"]
    static let priorities = [0, 1, 3, -2, Int.max]
    static let cities = ["Oslo", "Lima", "Köln", "Ko\u{308}ln"]
    static let zips = [0, 3, 150, 9999]

    static func values(_ random: inout SeededGenerator) -> [Errand] {
        (0..<26).map { index in
            Errand(
                id: String(format: "e%02d", index), title: random.pick(titles),
                note: random.chance(40) ? nil : random.pick(notes),
                priority: random.chance(30) ? nil : random.pick(priorities),
                place: Place(city: random.pick(cities), zip: random.pick(zips)),
                backup: random.chance(45) ? nil : Place(city: random.pick(cities), zip: random.pick(zips)),
                done: random.chance(50))
        }
    }

    static var fields: [QueryField<Errand>] {
        [
            .text("title", \.title, pool: titles, fragments: ["", "c", "Caf", "é", "e", "bike"]),
            .optional("note", \.note, pool: notes, show: { $0.debugDescription }),
            .optional("priority", \.priority, pool: priorities),
            .text("place.city", .path(\.place, \.city), pool: cities, fragments: ["K", "Kö", "o", "Li"]),
            .comparable("place.zip", .path(\.place, \.zip), pool: zips),
            .chained("backup", \.backup, "zip", \.zip, pool: zips),
            .chained("backup", \.backup, "city", \.city, pool: cities, show: { $0.debugDescription }),
            .flag("done", \.done),
            .comparable("urgency", \.urgency, pool: [0, 1, 3, 7, -3]),
            .comparable("titleLength", \.titleLength, pool: [0, 4, 8]),
        ]
    }

    static var sorts: [QuerySort<Errand>] {
        [
            .by("title", \.title), .by("priority", \.priority), .by("note", \.note), .by("place.city", \.place.city),
            .by("place.zip", \.place.zip), .by("urgency", \.urgency), .by("titleLength", \.titleLength),
        ]
    }

    static var idSort: QuerySort<Errand> { .by("id", \.id) }
}
