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
public struct StorageIndex: Sendable, Hashable {
    /// The indexed fields, most significant first. Never empty.
    public let fields: [FieldPath]

    /// An index on these fields, each a coding key or a dotted path (`"author.id"`), most
    /// significant first.
    /// - Precondition: at least one field.
    public init(_ fields: String...) {
        self.init(fields.map(FieldPath.init(stringLiteral:)))
    }

    /// An index on these fields, most significant first.
    /// - Precondition: at least one field.
    public init(_ fields: [FieldPath]) {
        precondition(!fields.isEmpty, "A StorageIndex needs at least one field")
        self.fields = fields
    }
}
