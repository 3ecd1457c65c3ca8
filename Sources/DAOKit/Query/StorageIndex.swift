/// A field list an entity is queried by, declared in ``Storable/indexes``: contexts that keep
/// indexes answer a query whose filter fixes the leading fields (and sorts by the next one)
/// without looking at other entities.
///
/// ```swift
/// struct MessageEntity: Storable {
///     static let indexes = [StorageIndex("dialogID", "date"), StorageIndex("isRead")]
///     …
/// }
/// ```
///
/// A **unique** index (`StorageIndex("email", unique: true)`) is also a rule: no two records of
/// the type may hold the same values in its fields. Every write that would break it — `create`,
/// `update`, `persist`, a batch, a transaction — fails with
/// ``StorageError/Code/uniqueViolation`` naming both records, and writes nothing. A record whose
/// indexed field is `nil`, missing, `Double.nan` or a container (an array, a nested structure)
/// takes part in no uniqueness check, as SQL treats NULLs as distinct (SQLite, which stores a NaN
/// as text, keeps one per index). The article "Queries and indexes" ("Unique indexes") says what
/// each shipped context compares and when it checks.
public struct StorageIndex: Sendable, Hashable {
    /// The indexed fields, most significant first. Never empty.
    public let fields: [FieldPath]
    /// Whether no two records may hold equal values in all of ``fields`` (see the type's
    /// description); `false` for an index that only serves queries.
    public let isUnique: Bool

    /// An index on these fields, each a coding key or a dotted path (`"author.id"`), most
    /// significant first.
    /// - Precondition: at least one field.
    public init(_ fields: String...) {
        self.init(fields.map(FieldPath.init(stringLiteral:)), unique: false)
    }

    /// An index on these fields, most significant first.
    /// - Precondition: at least one field.
    public init(_ fields: [FieldPath]) {
        self.init(fields, unique: false)
    }

    /// An index on these fields, each a coding key or a dotted path, most significant first; when
    /// `unique`, no two records may hold equal values in all of them.
    /// - Precondition: at least one field.
    public init(_ fields: String..., unique: Bool) {
        self.init(fields.map(FieldPath.init(stringLiteral:)), unique: unique)
    }

    /// An index on these fields, most significant first; when `unique`, no two records may hold
    /// equal values in all of them.
    /// - Precondition: at least one field.
    public init(_ fields: [FieldPath], unique: Bool) {
        precondition(!fields.isEmpty, "A StorageIndex needs at least one field")
        self.fields = fields
        self.isUnique = unique
    }
}
