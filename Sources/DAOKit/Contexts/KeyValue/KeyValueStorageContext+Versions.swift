/// The records an older entity version wrote, for ``BaseDao/migrate(progress:)-4r1a4``.
extension KeyValueStorageContext: VersionedStorageContext {
    /// The records of the type stamped with a version older than the entity's (a record without
    /// a stamp is version 1), resolved to the current entity, and a failure for each that does not
    /// read, or whose seal is broken so that its version cannot be read.
    /// - Throws: ``StorageError`` when the store cannot list its keys, or
    ///   ``StorageError/Code/invalidSchema``.
    public func fetchOlderRecords<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        let versioning = try EntityVersioning.of(E.self)
        if versioning.version == 1 { return ReadableRecords(values: [], failures: []) }
        return try readRecords(type, collectingReadFailures: true, olderThan: versioning.version)
    }
}
