/// A string-keyed store of string values that ``KeyValueStorageContext`` keeps its records in.
///
/// DAOKit ships two: `UserDefaults` and ``InMemoryKeyValueStore``. Conform your own (a Keychain
/// wrapper, a cloud store) by implementing the three primitives; ``flush()`` is optional.
///
/// A store need not be `Sendable` (`UserDefaults` is not, on Linux): the context that owns it calls
/// it from one thread at a time. If you also use the store directly from other threads, the store
/// itself must be thread-safe.
///
/// Every requirement may throw, so that stores which can fail (a full disk, a locked keychain)
/// report it; the context turns such an error into ``StorageError`` with ``StorageError/Kind/io(_:)``.
/// Stores that cannot fail, like `UserDefaults`, implement them without `throws`.
public protocol KeyValueStore {
    /// The string stored under `key`, or `nil` when there is none.
    /// - Throws: when the store cannot be read.
    func string(forKey key: String) throws -> String?
    /// Stores `value` under `key`, replacing what was there.
    /// - Throws: when the store cannot be written; the old value must then still be in place.
    func setString(_ value: String, forKey key: String) throws
    /// Removes the value under `key`; does nothing when there is none.
    /// - Throws: when the store cannot be written.
    func removeObject(forKey key: String) throws
    /// Makes the writes so far durable, for stores that buffer them. The context calls it once at
    /// the end of every operation that wrote. The default does nothing.
    /// - Throws: when the writes cannot be made durable; they stay visible in this process.
    func flush() throws
}

extension KeyValueStore {
    /// Does nothing: the store's writes are durable as they happen.
    public func flush() throws {}
}
