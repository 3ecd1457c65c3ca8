import DAOKit

/// Releases of one stored entity, `Ticket`, for the version tests: what each release's code
/// declares. They share the entity name, so each reads what the others wrote.
struct TicketV1: Storable, Equatable {
    var id: String
    var title: String
    var note: String
    var count: Int
    static var entityName: String { "Ticket" }
}

/// A version 1 record without `count`: no step supplies it, so it does not read as a later version.
struct TicketWithoutCount: Storable {
    var id: String
    var title: String
    var note: String
    static var entityName: String { "Ticket" }
}

/// Version 2: `points` added with a default, `count` widened to `Double`.
struct TicketV2: Storable, Equatable {
    var id: String
    var title: String
    var note: String
    var count: Double
    var points: Int
    static var entityName: String { "Ticket" }
    static let schema = EntitySchema(version: 2, steps: [2: [.added("points", default: 7), .widened("count")]])
}

/// Version 3: `note` renamed `remark`.
struct TicketV3: Storable, Equatable {
    var id: String
    var title: String
    var remark: String
    var count: Double
    var points: Int
    static var entityName: String { "Ticket" }
    static let schema = EntitySchema(
        version: 3,
        steps: [
            2: [.added("points", default: 7), .widened("count")],
            3: [.renamed("note", to: "remark")],
        ])
}

/// Version 4, declared readable by version 3: it only adds an optional field.
struct TicketV4: Storable, Equatable {
    var id: String
    var title: String
    var remark: String
    var count: Double
    var points: Int
    var owner: String?
    static var entityName: String { "Ticket" }
    static let schema = EntitySchema(
        version: 4, readableFrom: 3,
        steps: [
            2: [.added("points", default: 7), .widened("count")],
            3: [.renamed("note", to: "remark")],
        ])
}

/// A default whose type is not the field's.
struct TicketWrongDefault: Storable {
    var id: String
    var points: Int
    static var entityName: String { "Ticket" }
    static let schema = EntitySchema(version: 2, steps: [2: [.added("points", default: "seven")]])
}

/// A rename to a field the entity does not decode.
struct TicketRenameToNothing: Storable {
    var id: String
    var remark: String
    static var entityName: String { "Ticket" }
    static let schema = EntitySchema(version: 2, steps: [2: [.renamed("note", to: "remarks")]])
}

/// A step numbered beyond the version.
struct TicketStepBeyondVersion: Storable {
    var id: String
    static var entityName: String { "Ticket" }
    static let schema = EntitySchema(version: 2, steps: [3: [.removed("note")]])
}

/// One field changed twice in one step.
struct TicketTwiceInOneStep: Storable {
    var id: String
    var points: Int
    static var entityName: String { "Ticket" }
    static let schema = EntitySchema(
        version: 2, steps: [2: [.added("points", default: 1), .renamed("score", to: "points")]])
}

/// Defaults for optional fields, read as a value or as `nil`.
struct TicketOptionalDefault: Storable, Equatable {
    var id: String
    var title: String
    var due: Int?
    var label: String?
    static var entityName: String { "Ticket" }
    static let schema = EntitySchema(
        version: 2, steps: [2: [.added("due", default: 5), .added("label", default: String?.none)]])
}

/// Version 3 of another line: version 2 removed `note`, version 3 added a `note` of another kind
/// back with a default, which version 1 records read instead of their old note.
struct TicketNoteAddedBack: Storable, Equatable {
    var id: String
    var title: String
    var note: Int
    static var entityName: String { "Ticket" }
    static let schema = EntitySchema(
        version: 3, steps: [2: [.removed("note"), .removed("count")], 3: [.added("note", default: 0)]])
}
