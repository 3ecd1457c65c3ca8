import DAOKitInternals

/// A storage entity: a Codable value with an id that storage contexts can persist.
///
/// Entities are what a ``StorageContext`` reads and writes; apps usually never see them, because
/// ``BaseDao`` converts them to and from domain values with ``EntityMapper``.
public protocol Storable: Codable, Identifiable where ID: StorageKey {
    /// The name records of this type are stored under: a table, a folder, a key prefix.
    /// Two entity types must not share a name. Defaults to the type's name.
    static var entityName: String { get }
    /// The field lists this type is queried by. Contexts that keep indexes (in memory, SQLite)
    /// maintain one per entry and answer a query whose filter fixes an index's leading fields
    /// without reading other entities. An index declared `unique` (``StorageIndex/isUnique``) is
    /// also a rule every write keeps. Defaults to none.
    static var indexes: [StorageIndex] { get }
    /// The version of the records this code writes and what changed at each earlier version, so
    /// that records written by older versions of the app read as this type. Defaults to
    /// ``EntitySchema/initial``: version 1, no changes, and records exactly as before versions.
    static var schema: EntitySchema { get }
}

extension Storable {
    /// The type's name, such as `MessageEntity`.
    public static var entityName: String { TypeNames.name(of: Self.self) }
    /// No indexes.
    public static var indexes: [StorageIndex] { [] }
    /// Version 1 with no changes.
    public static var schema: EntitySchema { .initial }
}

/// `String(describing:)` of types, worked out once per type. The runtime builds a type's name
/// anew on every call, a noticeable share of reading one record from a file, and every storage
/// call asks for its entity's name.
enum TypeNames {
    /// The names found so far. Sound as `Sendable`: keys and values are plain values, and the
    /// dictionary never leaves the lock.
    private static let names = Locked<[ObjectIdentifier: String]>([:])

    /// The same as `String(describing: type)`.
    static func name(of type: Any.Type) -> String {
        let id = ObjectIdentifier(type)
        if let name = names.withLock({ $0[id] }) { return name }
        let name = String(describing: type)
        names.withLock { $0[id] = name }
        return name
    }
}
