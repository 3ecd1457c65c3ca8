import DAOKit

/// The records an older entity version wrote, for ``BaseDao/migrate(progress:)-4r1a4``.
extension SQLiteStorageContext: VersionedStorageContext {
    /// The rows of the type whose `daokit_version` is older than the entity's (NULL, or a table
    /// written before versions: version 1), resolved to the current entity, and a failure for
    /// each that does not read (see ``fetchReadable(_:)``). The `daokit_version` index selects
    /// them, for an entity whose steps add or rename fields.
    /// - Throws: ``StorageError`` with the SQLite failure, or ``StorageError/Code/invalidSchema``.
    public func fetchOlderRecords<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        let entityName = try Self.checkedName(E.self)
        let versioning = try EntityVersioning.of(E.self)
        let none = ReadableRecords<E, E.ID>(values: [], failures: [])
        if versioning.version == 1 { return none }
        return try read(entityName: entityName) { _, connection in
            // The table as it is now: the context's may predate the version columns, which
            // another connection may have added since.
            guard let table = try SQLiteSchema.load(entityName, connection: connection) else { return none }
            let column = SQLiteEntityVersions.versionColumn
            let statement = try connection.statement(
                "SELECT * FROM \(table.quotedName)"
                    + (table.hasVersions ? " WHERE \(column) IS NULL OR \(column) < ?" : ""))
            defer { statement.reset() }
            if table.hasVersions { try statement.bind(.integer(Int64(versioning.version)), at: 1) }
            var result = none
            guard try statement.step() else { return result }
            let reader = statement.rowReader()
            repeat {
                try appendRow(
                    to: &result, reader: reader, versioning: versioning, entityName: entityName, connection: connection)
            } while try statement.step()
            return result
        } ?? none
    }
}
