/// A string-keyed store of string values that ``KeyValueStorageContext`` keeps its records in.
///
/// DAOKit ships two: `UserDefaults` and ``InMemoryKeyValueStore``. Conform your own (a Keychain
/// wrapper, a cloud store) by implementing the three primitives and ``keys(withPrefix:)``;
/// ``flush()`` is optional.
///
/// A store need not be `Sendable` (`UserDefaults` is not, on Linux): the context that owns it calls
/// it from one thread at a time. A store shared by several contexts (two contexts on one object)
/// or also used directly from other threads must itself be thread-safe, as both shipped stores are.
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
    /// Every key the store holds a value under that starts with `prefix`, in any order.
    ///
    /// ``KeyValueStorageContext`` lists an entity type's records with it instead of keeping a list
    /// of its own, so that contexts which share the store never have a list to get out of step.
    /// The default throws: a store that does not implement it can save, fetch by id and delete by
    /// id, but not count, fetch all or delete all.
    /// - Throws: when the store cannot be read.
    func keys(withPrefix prefix: String) throws -> [String]
    /// Makes the writes so far durable, for stores that buffer them. The context calls it once at
    /// the end of every operation that wrote. The default does nothing.
    /// - Throws: when the writes cannot be made durable; they stay visible in this process.
    func flush() throws
    /// How many writes the store takes well between two ``flush()``es; `nil` when any number is
    /// fine. The context flushes after this many writes within one operation, so that a large
    /// batch does not slow down with every write. The default is `nil`.
    var writesBetweenFlushes: Int? { get }
}

extension KeyValueStore {
    /// Does nothing: the store's writes are durable as they happen.
    public func flush() throws {}

    /// `nil`: writing more before a flush costs no more per write.
    public var writesBetweenFlushes: Int? { nil }

    /// Throws ``StorageError`` with ``StorageError/Kind/io(_:)`` saying that the store cannot list
    /// its keys; a default only so that stores written before this requirement keep compiling.
    /// Implement it to make ``KeyValueStorageContext/count(_:)``,
    /// ``KeyValueStorageContext/fetchAll(_:)`` and ``KeyValueStorageContext/deleteAll(_:)`` work.
    public func keys(withPrefix prefix: String) throws -> [String] {
        throw StorageError(.io("\(type(of: self)) cannot list its keys: implement KeyValueStore.keys(withPrefix:)"))
    }
}
