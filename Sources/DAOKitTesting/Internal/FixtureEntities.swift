import DAOKit

/// An entity with `Int` ids.
public struct FixtureCounterEntity: Storable, Equatable, Sendable {
    /// The identifier.
    public var id: Int
    /// A number.
    public var value: Int

    /// Creates a counter.
    public init(id: Int, value: Int) {
        self.id = id
        self.value = value
    }
}

/// An entity with `String` ids, used for awkward ids.
public struct FixtureNoteEntity: Storable, Equatable, Sendable {
    /// The identifier.
    public var id: String
    /// The text.
    public var body: String

    /// Creates a note.
    public init(id: String, body: String) {
        self.id = id
        self.body = body
    }
}

/// A second entity with `String` ids, stored next to ``FixtureNoteEntity`` with the same ids to
/// check that entity types are kept apart.
public struct FixtureTagEntity: Storable, Equatable, Sendable {
    /// The identifier.
    public var id: String
    /// The text.
    public var label: String

    /// Creates a tag.
    public init(id: String, label: String) {
        self.id = id
        self.label = label
    }
}

/// A class entity, to check that contexts store snapshots: changing an instance after saving or
/// fetching it must not change what is stored.
public final class FixtureSnapshotEntity: Storable {
    /// The identifier.
    public var id: Int
    /// A display name.
    public var title: String
    /// Free-form labels.
    public var tags: [String]

    /// Creates a snapshot entity.
    public init(id: Int, title: String, tags: [String]) {
        self.id = id
        self.title = title
        self.tags = tags
    }
}

/// A domain value whose `level` may not fit its entity's `Int8`: the contract's unmappable value.
public struct FixtureGauge: Codable, Identifiable, Equatable, Sendable {
    /// The identifier.
    public var id: Int
    /// A reading; the entity stores it as `Int8`.
    public var level: Int

    /// Creates a gauge.
    public init(id: Int, level: Int) {
        self.id = id
        self.level = level
    }
}

/// How a ``FixtureGauge`` is stored: a `level` outside `Int8`'s range cannot be mapped.
public struct FixtureGaugeEntity: Storable, Equatable, Sendable {
    /// The identifier.
    public var id: Int
    /// A reading; the entity stores it as `Int8`.
    public var level: Int8

    /// Creates a gauge entity.
    public init(id: Int, level: Int8) {
        self.id = id
        self.level = level
    }
}
