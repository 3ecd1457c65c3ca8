/// Reading past unreadable records, listing what is stored and removing records that no longer
/// read: how an app recovers when a few records (written by a newer version, or damaged) fail to
/// decode, instead of losing access to all of them.
///
/// ```swift
/// let found = try notes.readReadable()
/// show(found.values)
/// for failure in found.failures { log(failure) }           // one line each: entity, key, why
/// try notes.erase(storageKeys: found.failures.compactMap(\.storageKey))
/// ```
extension BaseDao {
    /// Every stored value that can be read and mapped to `Domain`, and beside them a failure for
    /// each record that cannot: the context's read failures as they are, and a record that reads
    /// but does not map as ``StorageError/Kind/decodingFailed`` with the ``MappingError`` as
    /// ``StorageError/underlyingError``.
    ///
    /// Contexts that rely on the protocol's default cannot read past a bad record; see
    /// ``StorageContext/fetchReadable(_:)``.
    /// - Throws: ``StorageError`` only when the context cannot list the records at all.
    public func readReadable() throws -> ReadableRecords<Domain, Domain.ID> {
        let fetched = try context.fetchReadable(Entity.self)
        var result = ReadableRecords<Domain, Domain.ID>(values: [], failures: fetched.failures)
        result.values.reserveCapacity(fetched.values.count)
        for entity in fetched.values {
            do {
                result.values.append(try mapper.map(entity, to: Domain.self))
            } catch {
                let key = entity.id.storageKey
                result.failures.append(UnreadableRecord(storageKey: key, error: StorageError(
                    .decodingFailed, entityName: Entity.entityName, key: key, underlyingError: error)))
            }
        }
        return result
    }

    /// The ids of every stored record, readable or not, without decoding any; keys that do not
    /// spell a `Domain.ID` are left out (``StorageContext/storedKeys(_:)`` lists them too).
    /// - Throws: ``StorageError`` when the context cannot list its records.
    public func storedIDs() throws -> [Domain.ID] {
        try context.storedKeys(Entity.self).compactMap(Domain.ID.init(storageKey:))
    }

    /// Removes the records under these storage keys without reading them, all or nothing; unknown
    /// keys are ignored. Use it for a record that no longer decodes, or whose key no longer spells
    /// an id (``UnreadableRecord/storageKey``).
    /// - Throws: ``StorageError`` when the context cannot delete.
    public func erase(storageKeys: [String]) throws {
        try context.delete(Entity.self, storageKeys: storageKeys)
    }
}
