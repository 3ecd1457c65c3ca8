import DAOKit

/// Three releases of one stored entity, `VersionedTicket`, for ``VersionedRecordDifferential``:
/// what each release's code declares. They share the entity name, so each reads what the others
/// wrote.
package struct FixtureVersionedTicketV1: Storable, Sendable {
    package var id: Int
    package var title: String
    package var note: String
    package var size: Int
    package static var entityName: String { "VersionedTicket" }
}

/// Version 2: `points` added with a default, `size` widened to `Double`.
package struct FixtureVersionedTicketV2: Storable, Sendable {
    package var id: Int
    package var title: String
    package var note: String
    package var size: Double
    package var points: Int
    package static var entityName: String { "VersionedTicket" }
    package static let schema = EntitySchema(
        version: 2, steps: [2: [.added("points", default: FixtureVersionedTicket.defaultPoints), .widened("size")]])
}

/// Version 3, the current one: `note` renamed `remark`. Its own domain type.
package struct FixtureVersionedTicket: Storable, Hashable, Sendable {
    package var id: Int
    package var title: String
    package var remark: String
    package var size: Double
    package var points: Int
    package static var entityName: String { "VersionedTicket" }
    package static let defaultPoints = 7
    package static let schema = EntitySchema(
        version: 3,
        steps: [
            2: [.added("points", default: defaultPoints), .widened("size")],
            3: [.renamed("note", to: "remark")],
        ])
}

/// The first version of a ticket whose second version's migration step rewrites it.
package struct FixtureMigratedTicketV1: Storable, Sendable {
    package var id: Int
    package var title: String
    package var size: Int
    package static var entityName: String { "MigratedTicket" }
}

/// Version 2, the current one: `size` (hours) became a label, and `weight` is derived from it,
/// by a migration step. Its own domain type.
package struct FixtureMigratedTicket: Storable, Hashable, Sendable {
    package var id: Int
    package var title: String
    package var size: String
    package var weight: Int
    package static var entityName: String { "MigratedTicket" }
    package static let schema = EntitySchema(
        version: 2,
        steps: [
            2: [
                .migrated { record in
                    let hours = try record.decode(Int.self, forField: "size")
                    guard hours >= 0 else { throw record.failure("a ticket cannot take \(hours) hours") }
                    try record.encode(hours < 3 ? "S" : hours < 6 ? "M" : "L", forField: "size")
                    try record.encode(hours * 2, forField: "weight")
                }
            ]
        ])
}

/// The first release of a note, for ``VersionedStorageContextContract``.
package struct FixtureKeptNoteV1: Storable, Equatable, Sendable {
    package var id: String
    package var title: String
    package var body: String
    package static var entityName: String { "KeptNote" }
}

/// The second release stops reading `body`, and declares that the first still reads its records:
/// its saves keep the body.
package struct FixtureKeptNote: Storable, Equatable, Sendable {
    package var id: String
    package var title: String
    package static var entityName: String { "KeptNote" }
    package static let schema = EntitySchema(version: 2, readableFrom: 1, steps: [2: [.removed("body")]])
}
