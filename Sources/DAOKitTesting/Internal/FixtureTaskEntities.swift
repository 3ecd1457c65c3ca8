import DAOKit

/// A task as another version of an app stores it: any status text. Saved next to
/// ``FixtureTaskEntity`` (same ``Storable/entityName``) to plant a record that this version's
/// entity cannot decode.
public struct FixtureTaskRecord: Storable, Equatable, Sendable {
    /// Shared with ``FixtureTaskEntity``: both are one stored entity type.
    public static var entityName: String { "FixtureTask" }
    /// The identifier.
    public var id: Int
    /// The title.
    public var title: String
    /// The status as text; only the raw values of ``FixtureTaskStatus`` decode as a task.
    public var status: String

    /// Creates a task record.
    public init(id: Int, title: String, status: String) {
        self.id = id
        self.title = title
        self.status = status
    }
}

/// The statuses this version of the fixture app knows.
public enum FixtureTaskStatus: String, Codable, Sendable {
    /// Not done yet.
    case open
    /// Done.
    case done
}

/// A task as this version reads it: a stored status outside ``FixtureTaskStatus`` (one a newer
/// version added) does not decode.
public struct FixtureTaskEntity: Storable, Equatable, Sendable {
    /// Shared with ``FixtureTaskRecord``.
    public static var entityName: String { "FixtureTask" }
    /// The identifier.
    public var id: Int
    /// The title.
    public var title: String
    /// The status.
    public var status: FixtureTaskStatus

    /// Creates a task.
    public init(id: Int, title: String, status: FixtureTaskStatus) {
        self.id = id
        self.title = title
        self.status = status
    }
}

/// The domain value of ``FixtureTaskEntity``, for DAO tests.
public struct FixtureTask: Codable, Identifiable, Equatable, Sendable {
    /// The identifier.
    public var id: Int
    /// The title.
    public var title: String
    /// The status.
    public var status: FixtureTaskStatus

    /// Creates a task.
    public init(id: Int, title: String, status: FixtureTaskStatus) {
        self.id = id
        self.title = title
        self.status = status
    }
}
