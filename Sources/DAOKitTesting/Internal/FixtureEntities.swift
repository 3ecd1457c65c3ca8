import DAOKit

/// An entity with `Int` ids.
package struct FixtureCounterEntity: Storable, Equatable, Sendable {
    /// The identifier.
    package var id: Int
    /// A number.
    package var value: Int

    /// Creates a counter.
    package init(id: Int, value: Int) {
        self.id = id
        self.value = value
    }
}

/// An entity with `String` ids, used for awkward ids.
package struct FixtureNoteEntity: Storable, Equatable, Sendable {
    /// The identifier.
    package var id: String
    /// The text.
    package var body: String

    /// Creates a note.
    package init(id: String, body: String) {
        self.id = id
        self.body = body
    }
}

/// A second entity with `String` ids, stored next to ``FixtureNoteEntity`` with the same ids to
/// check that entity types are kept apart.
package struct FixtureTagEntity: Storable, Equatable, Sendable {
    /// The identifier.
    package var id: String
    /// The text.
    package var label: String

    /// Creates a tag.
    package init(id: String, label: String) {
        self.id = id
        self.label = label
    }
}

/// A class entity, to check that contexts store snapshots: changing an instance after saving or
/// fetching it must not change what is stored.
package final class FixtureSnapshotEntity: Storable {
    /// The identifier.
    package var id: Int
    /// A display name.
    package var title: String
    /// Free-form labels.
    package var tags: [String]

    /// Creates a snapshot entity.
    package init(id: Int, title: String, tags: [String]) {
        self.id = id
        self.title = title
        self.tags = tags
    }
}

/// A domain value whose `level` may not fit its entity's `Int8`: the contract's unmappable value.
package struct FixtureGauge: Codable, Identifiable, Equatable, Sendable {
    /// The identifier.
    package var id: Int
    /// A reading; the entity stores it as `Int8`.
    package var level: Int

    /// Creates a gauge.
    package init(id: Int, level: Int) {
        self.id = id
        self.level = level
    }
}

/// How a ``FixtureGauge`` is stored: a `level` outside `Int8`'s range cannot be mapped.
package struct FixtureGaugeEntity: Storable, Equatable, Sendable {
    /// The identifier.
    package var id: Int
    /// A reading; the entity stores it as `Int8`.
    package var level: Int8

    /// Creates a gauge entity.
    package init(id: Int, level: Int8) {
        self.id = id
        self.level = level
    }
}
