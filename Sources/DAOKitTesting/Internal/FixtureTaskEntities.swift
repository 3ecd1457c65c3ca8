import DAOKit

/// A task as another version of an app stores it: any status text. Saved next to
/// ``FixtureTaskEntity`` (same ``Storable/entityName``) to plant a record that this version's
/// entity cannot decode.
package struct FixtureTaskRecord: Storable, Equatable, Sendable {
    /// Shared with ``FixtureTaskEntity``: both are one stored entity type.
    package static var entityName: String { "FixtureTask" }
    /// The identifier.
    package var id: Int
    /// The title.
    package var title: String
    /// The status as text; only the raw values of ``FixtureTaskStatus`` decode as a task.
    package var status: String

    /// Creates a task record.
    package init(id: Int, title: String, status: String) {
        self.id = id
        self.title = title
        self.status = status
    }
}

/// The statuses this version of the fixture app knows.
package enum FixtureTaskStatus: String, Codable, Sendable {
    /// Not done yet.
    case open
    /// Done.
    case done
}

/// A task as this version reads it: a stored status outside ``FixtureTaskStatus`` (one a newer
/// version added) does not decode.
package struct FixtureTaskEntity: Storable, Equatable, Sendable {
    /// Shared with ``FixtureTaskRecord``.
    package static var entityName: String { "FixtureTask" }
    /// The identifier.
    package var id: Int
    /// The title.
    package var title: String
    /// The status.
    package var status: FixtureTaskStatus

    /// Creates a task.
    package init(id: Int, title: String, status: FixtureTaskStatus) {
        self.id = id
        self.title = title
        self.status = status
    }
}

/// The domain value of ``FixtureTaskEntity``, for DAO tests.
package struct FixtureTask: Codable, Identifiable, Equatable, Sendable {
    /// The identifier.
    package var id: Int
    /// The title.
    package var title: String
    /// The status.
    package var status: FixtureTaskStatus

    /// Creates a task.
    package init(id: Int, title: String, status: FixtureTaskStatus) {
        self.id = id
        self.title = title
        self.status = status
    }
}
