/// Reading past unreadable records, listing keys and removing records by key, for
/// ``KeyValueStorageContext``: all from the store's keys, without decoding.
extension KeyValueStorageContext {
    /// Every record of the type that reads and decodes, ordered by store key, and a failure for
    /// each one that does not (``StorageError/Kind/decodingFailed``,
    /// ``StorageError/Kind/corruptRecord(_:)`` when it is not JSON, ``StorageError/Kind/io(_:)``
    /// when the store fails to read it).
    /// - Throws: ``StorageError`` with ``StorageError/Kind/io(_:)`` only when the store cannot
    ///   list its keys.
    public func fetchReadable<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        try readRecords(type, collectingReadFailures: true)
    }

    /// The storage keys of every record of the type the store holds, ordered by store key, read
    /// from the store's keys alone.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/io(_:)`` when the store cannot list its keys.
    public func storedKeys<E: Storable>(_ type: E.Type) throws -> [String] {
        try lockedStore.withLock { store in try listRecords(E.entityName, in: store).map(\.key) }
    }

    /// Removes the records under these storage keys without reading them as entities, with the
    /// guarantees of ``delete(_:ids:)``; unknown keys are ignored.
    /// - Throws: as ``delete(_:ids:)``.
    public func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) throws {
        let entityName = E.entityName
        var seen = Set<String>(minimumCapacity: storageKeys.count)
        var targets: [(key: String?, storeKey: String)] = []
        for key in storageKeys where seen.insert(key).inserted {
            targets.append(
                (key, KeyValueKeyScheme.recordKey(namespace: namespace, entityName: entityName, storageKey: key)))
        }
        try lockedStore.withLock { store in try remove(targets, of: entityName, from: store) }
        notifier.post(entityName: entityName, storageKeys: seen)
    }
}
