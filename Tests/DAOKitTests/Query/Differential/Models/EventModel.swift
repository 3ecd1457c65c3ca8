import DAOKit
import Foundation

/// Enums with raw values (a `String` one and a `Comparable` `Int` one) and Foundation values:
/// `Date`, `UUID` (also as the id) and `Decimal`, which queries carry in their own representation
/// and compare the way Swift does.
enum EventModel: DifferentialModel {
    enum Kind: String, Codable, Sendable {
        case meeting, call, trip
    }

    enum Level: Int, Codable, Comparable, Sendable {
        case low = 1, middle = 5, high = 9
        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    struct Event: Codable, Identifiable, Equatable {
        var id: UUID
        var kind: Kind
        var level: Level
        var at: Date
        var token: UUID
        var cost: Decimal
        var link: URL?
    }

    struct EventEntity<Indexing: IndexChoice>: Storable {
        static var indexes: [StorageIndex] {
            Indexing.choose([
                StorageIndex("kind", "at"), StorageIndex("level"), StorageIndex("cost"), StorageIndex("token"),
            ])
        }
        var id: UUID
        var kind: Kind
        var level: Level
        var at: Date
        var token: UUID
        var cost: Decimal
        var link: URL?
    }

    typealias Domain = Event
    typealias IndexedEntity = EventEntity<Indexed>
    typealias PlainEntity = EventEntity<Unindexed>

    static let name = "enums, dates, UUIDs, decimals"

    static let dates = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_700_000_000.5),
        Date(timeIntervalSince1970: -86_400), Date(timeIntervalSinceReferenceDate: 12.25),
        Date(timeIntervalSince1970: 4_102_444_800),
    ]
    static let tokens = [
        UUID(uuidString: "00000000-0000-0000-0000-000000000000")!,
        UUID(uuidString: "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF")!,
        UUID(uuidString: "7D444840-9DC0-11D1-B245-5FFDCE74FAD2")!,
        UUID(uuidString: "a1b2c3d4-0000-4000-8000-00000000000a")!,
    ]
    static let costs = [
        Decimal(0), Decimal(string: "0.1")!, Decimal(string: "-12.5")!, Decimal(string: "100000000000000000000")!,
        Decimal(string: "3.14159")!, Decimal(string: "0.10")!,
    ]
    static let links = [
        URL(string: "https://example.com/a")!, URL(string: "https://example.com/%C3%A9")!,
        URL(string: "mailto:x@example.com")!,
    ]

    static func values(_ random: inout SeededGenerator) -> [Event] {
        (0..<26).map { _ in
            let id = UUID(
                uuid: (
                    UInt8.random(in: 0...255, using: &random), 0, 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0,
                    UInt8.random(in: 0...255, using: &random), UInt8.random(in: 0...255, using: &random)
                ))
            return Event(
                id: id, kind: random.pick([Kind.meeting, .call, .trip]),
                level: random.pick([Level.low, .middle, .high]),
                at: random.pick(dates), token: random.pick(tokens), cost: random.pick(costs),
                link: random.chance(40) ? nil : random.pick(links))
        }
    }

    static var fields: [QueryField<Event>] {
        [
            .equatable("kind", \.kind, pool: [.meeting, .call, .trip], show: { ".\($0)" }),
            .comparable("level", \.level, pool: [.low, .middle, .high], show: { ".\($0)" }),
            .comparable(
                "at", \.at, pool: dates + [Date(timeIntervalSince1970: 1_700_000_000)],
                show: { "Date(\($0.timeIntervalSince1970))" }),
            .comparable("token", \.token, pool: tokens),
            .comparable("cost", \.cost, pool: costs + [Decimal(-13)]),
            .optional("link", \.link, pool: links),
        ]
    }

    static var sorts: [QuerySort<Event>] {
        [.by("level", \.level), .by("at", \.at), .by("token", \.token), .by("cost", \.cost)]
    }

    static var idSort: QuerySort<Event> { .by("id", \.id) }
}
