import DAOKit
import DAOKitSQL
import PostgresNIO

/// Entity versions (``EntitySchema``) on PostgreSQL: each row keeps the version that wrote it in
/// `daokit_version` (``PostgresSchema/versionColumn``; 1 for an entity that declares none, and for
/// every row of a table an earlier release made), and in `daokit_readable_from` the oldest version
/// that reads it, when older (else NULL).
///
/// - **Reads** resolve an older row on the fly (``JSONRecord/Versioning``), without writing; a
///   row a newer version wrote fails to read with ``StorageError/Kind/newerVersion(_:)``, beside
///   the others, unless it declares this version can read it.
/// - **Saves** never replace a row a newer version wrote: the upsert's `DO UPDATE … WHERE`
///   refuses it, and the save fails with ``StorageError/Kind/newerVersion(_:)``, writing
///   nothing. A save keeps the stored values of the fields a step declared removed
///   (``JSONRecord/Versioning/keptFields``) that the new record does not hold, in the same
///   statement.
/// - **Queries** stay exact: while the table holds rows older than the current version, a
///   condition or sort on a field those rows hold otherwise (added or renamed since; every field,
///   for rows older than a migration step) is left to Swift, which reads the resolved entities.
///   Each statement reads the oldest version stored in its own snapshot, through an index on
///   `daokit_version`, and runs again when that is not the one its SQL was built for (see
///   `PostgresStorageContext+Query.swift`). `migrate()` rewrites the older rows, and those fields
///   go to SQL again.
/// - **`migrate()`** (``BaseDao/migrate(progress:)-4r1a4``) is one `SERIALIZABLE` transaction:
///   all or nothing, on every instance.
extension PostgresStorageContext: VersionedStorageContext {
    /// ``VersionedStorageContext/fetchOlderRecords(_:)``: the rows whose version is older than the
    /// entity's, read as the current entity.
    public func fetchOlderRecords<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        try blocking(E.entityName) { try await self.fetchOlderRecords(type) }
    }

    /// The `async` form of ``fetchOlderRecords(_:)``.
    /// - Throws: ``StorageError`` when the server fails, or with
    ///   ``StorageError/Kind/invalidSchema(_:)`` for a schema that cannot be right.
    public func fetchOlderRecords<E: Storable>(_ type: E.Type) async throws -> ReadableRecords<E, E.ID> {
        let versioning = try JSONRecord.Versioning.of(E.self)
        if versioning.version == 1 { return ReadableRecords(values: [], failures: []) }
        return try await readRows(E.self, where: "\(PostgresSchema.versionColumn) < \(versioning.version)")
    }

    /// Indexes the version column of an entity whose older records hold fields otherwise than it
    /// reads them, unless this context did before: its queries ask for the oldest version stored.
    /// On a transaction's handle, as ``ensureIndexes(_:records:)`` does.
    func ensureVersionIndex(_ entityName: String, table: String) async throws {
        if state.withLock({ $0.tables[entityName]?.versionIndexEnsured == true }) { return }
        if let root, let held, !held.hasWritten(entityName) {
            try await root.ensureVersionIndex(entityName, table: table)
        } else {
            let statement = PostgresSchema.createVersionIndex(table, entityName: entityName, schema: schema)
            try await transaction(entityName: entityName) { connection in
                try await self.lockDDL(on: connection)
                try await connection.execute(PostgresQuery(unsafeSQL: statement), logger: Self.logger)
            }
        }
        state.withLock { $0.tables[entityName, default: TableState()].versionIndexEnsured = true }
    }

    /// The oldest version of the table's rows (0 when it has none) as last read, or read now.
    func oldestVersion(_ entityName: String, table: String, refresh: Bool) async throws -> Int {
        if !refresh, let known = state.withLock({ $0.tables[entityName]?.oldestVersion }) { return known }
        let sql = "SELECT \(PostgresSchema.oldestVersion(in: table))"
        let oldest = try await withConnection(entityName: entityName) { connection in
            for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger)
                .decode(Int.self)
            {
                return value
            }
            return 0
        }
        state.withLock { $0.tables[entityName, default: TableState()].oldestVersion = oldest }
        return oldest
    }
}
