import DAOKit

/// The records an older entity version wrote, for ``BaseDao/migrate(progress:)-4r1a4``.
extension FileStorageContext: VersionedStorageContext {
    /// The records of the type whose envelope carries a version older than the entity's (no
    /// `dataVersion`: version 1), resolved to the current entity, and a failure for each that
    /// does not read, or whose envelope is too damaged to tell its version. The version is read
    /// from the envelope before the entity is decoded, so current records cost a read of their
    /// file and nothing more.
    /// - Throws: ``StorageError`` of kind `.io` when the type's folder cannot be listed, or
    ///   ``StorageError/Code/invalidSchema``.
    public func fetchOlderRecords<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        let versioning = try EntityVersioning.of(E.self)
        if versioning.version == 1 { return ReadableRecords(values: [], failures: []) }
        if let handleTransaction { return try handleTransaction.fetchOlderRecords(type, olderThan: versioning.version) }
        return try readableRecordFiles(E.self, olderThan: versioning.version)
    }
}
