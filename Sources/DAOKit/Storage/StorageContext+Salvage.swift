/// Default implementations of the salvage requirements (``StorageContext/fetchReadable(_:)``,
/// ``StorageContext/storedKeys(_:)``, ``StorageContext/delete(_:storageKeys:)``), so that contexts
/// written before they existed keep compiling.
///
/// A default can only use the other requirements, which decode every record; so it cannot skip or
/// list an unreadable record, and it says so by throwing what ``StorageContext/fetchAll(_:)``
/// throws. The contexts shipped with DAOKit implement all three without decoding.
extension StorageContext {
    /// Every entity of the type, through ``fetchAll(_:)``: no failures beside them.
    /// - Throws: what ``fetchAll(_:)`` throws, including for one unreadable record; the default
    ///   cannot read past it.
    public func fetchReadable<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        ReadableRecords(values: try fetchAll(type), failures: [])
    }

    /// The storage keys of the entities ``fetchAll(_:)`` returns.
    /// - Throws: what ``fetchAll(_:)`` throws, including for one unreadable record.
    public func storedKeys<E: Storable>(_ type: E.Type) throws -> [String] {
        try fetchAll(type).map(\.id.storageKey)
    }

    /// Deletes the keys that spell an `E.ID` with ``delete(_:ids:)``; a key that does not is
    /// ignored, because the default has no other way to name its record.
    /// - Throws: what ``delete(_:ids:)`` throws.
    public func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) throws {
        try delete(type, ids: storageKeys.compactMap(E.ID.init(storageKey:)))
    }
}
