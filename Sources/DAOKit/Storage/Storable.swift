/// A storage entity: a Codable value with an id that storage contexts can persist.
///
/// Entities are what a ``StorageContext`` reads and writes; apps usually never see them, because
/// ``BaseDao`` converts them to and from domain values with ``EntityMapper``.
public protocol Storable: Codable, Identifiable where ID: StorageKey {
    /// The name records of this type are stored under: a table, a folder, a key prefix.
    /// Two entity types must not share a name. Defaults to the type's name.
    static var entityName: String { get }
}

extension Storable {
    /// The type's name, such as `MessageEntity`.
    public static var entityName: String { String(describing: Self.self) }
}
