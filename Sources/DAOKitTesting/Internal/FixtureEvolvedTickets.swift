import DAOKit

/// A ticket as version 2 of an app reads it: `points` was added, and a record stored by version 1
/// (without it) or holding `null` there decodes as `0` — the way to add a field that the article "Evolving entities" gives.
package struct FixtureTicket: Codable, Identifiable, Hashable, Sendable {
    /// The identifier.
    package var id: Int
    /// The title.
    package var title: String
    /// Added in version 2; `0` for older records.
    package var points: Int
    /// Added in version 2 as optional: `nil` for older records.
    package var due: Double?

    /// Creates a ticket.
    package init(id: Int, title: String, points: Int, due: Double?) {
        self.id = id
        self.title = title
        self.points = points
        self.due = due
    }
}

/// ``FixtureTicket``'s entity: `points` decodes with `decodeIfPresent(…) ?? 0`.
package struct FixtureTicketEntity: Storable, Hashable, Sendable {
    /// Shared with ``FixtureTicketRecordV1`` and ``FixtureTicketRecordOther``.
    package static var entityName: String { "FixtureTicket" }
    /// The identifier.
    package var id: Int
    /// The title.
    package var title: String
    /// `0` when the record lacks it or holds `null`.
    package var points: Int
    /// `nil` when the record lacks it.
    package var due: Double?

    private enum CodingKeys: String, CodingKey { case id, title, points, due }

    /// Creates an entity.
    package init(id: Int, title: String, points: Int, due: Double?) {
        self.id = id
        self.title = title
        self.points = points
        self.due = due
    }

    /// Decodes a record of any version: a missing or `null` `points` is `0`.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        points = try container.decodeIfPresent(Int.self, forKey: .points) ?? 0
        due = try container.decodeIfPresent(Double.self, forKey: .due)
    }
}

/// A ticket as version 1 stored it: no `points`, no `due`.
package struct FixtureTicketRecordV1: Storable, Sendable {
    /// Shared with ``FixtureTicketEntity``.
    package static var entityName: String { "FixtureTicket" }
    /// The identifier.
    package var id: Int
    /// The title.
    package var title: String

    /// Creates a record.
    package init(id: Int, title: String) {
        self.id = id
        self.title = title
    }
}

/// A ticket whose `points` holds `null` (an optional another version wrote) or a string (a kind
/// change: such a record does not decode as ``FixtureTicketEntity``).
package struct FixtureTicketRecordOther: Storable, Sendable {
    /// Shared with ``FixtureTicketEntity``.
    package static var entityName: String { "FixtureTicket" }
    /// The identifier.
    package var id: Int
    /// The title.
    package var title: String
    /// `nil` stores `null`.
    package var points: String?

    private enum CodingKeys: String, CodingKey { case id, title, points }

    /// Creates a record.
    package init(id: Int, title: String, points: String?) {
        self.id = id
        self.title = title
        self.points = points
    }

    /// Stores `points` as `null` when it is `nil` (not omitted, as synthesized code would).
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(points, forKey: .points)
    }
}

/// A ticket stored before `title` was renamed to it: such a record does not decode as
/// ``FixtureTicketEntity`` (whose `title` is required).
package struct FixtureTicketRecordUntitled: Storable, Sendable {
    /// Shared with ``FixtureTicketEntity``.
    package static var entityName: String { "FixtureTicket" }
    /// The identifier.
    package var id: Int
    /// The name `title` had before.
    package var name: String
    /// The points.
    package var points: Int

    /// Creates a record.
    package init(id: Int, name: String, points: Int) {
        self.id = id
        self.name = name
        self.points = points
    }
}
