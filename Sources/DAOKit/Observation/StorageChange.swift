/// What one committed write changed in a ``StorageContext``: which entity type, and which records
/// of it where the context knows them.
///
/// Contexts post these through their ``StorageChangeNotifier`` after a write commits; observers
/// such as ``BaseDao/observe(where:sortedBy:limit:offset:)`` read them to decide what to re-run.
/// A change only ever says "look again": it carries no values, and announcing more than changed
/// (a key that did not change, `nil` keys, `nil` entity name) is always correct, only slower.
public struct StorageChange: Sendable, Hashable, CustomStringConvertible {
    /// The ``Storable/entityName`` of the records that changed; `nil` when the context cannot tell
    /// which types changed (``StorageContext/reset()``, another process's write it cannot name):
    /// every type may have changed.
    public var entityName: String?
    /// The ``StorageKey/storageKey`` of every record that changed; `nil` when unknown or when every
    /// record of the type may have changed (`deleteAll`, a delete by query).
    public var storageKeys: Set<String>?

    /// A change to the records under `storageKeys` (`nil`: any record) of the entity `entityName`
    /// (`nil`: any entity type).
    public init(entityName: String?, storageKeys: Set<String>?) {
        self.entityName = entityName
        self.storageKeys = storageKeys
    }

    /// A change that may have touched any record of any type.
    public static var everything: StorageChange { StorageChange(entityName: nil, storageKeys: nil) }

    /// A change that may have touched any record of the type `entityName`.
    public static func entity(_ entityName: String) -> StorageChange {
        StorageChange(entityName: entityName, storageKeys: nil)
    }

    /// Whether this change may have touched records of the type `entityName`.
    public func concerns(entityName name: String) -> Bool {
        entityName == nil || entityName == name
    }

    /// Whether this change may have touched the record `storageKey` of the type `entityName`.
    public func concerns(entityName name: String, storageKey: String) -> Bool {
        concerns(entityName: name) && (entityName == nil || storageKeys == nil || storageKeys!.contains(storageKey))
    }

    public var description: String {
        let keys = storageKeys.map { "\($0.sorted())" } ?? "any record"
        return "StorageChange(\(entityName ?? "any entity"): \(keys))"
    }
}
