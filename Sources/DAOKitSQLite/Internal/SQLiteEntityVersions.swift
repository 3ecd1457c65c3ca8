import CSQLite
import DAOKit
import DAOKitSQL

/// Where a row keeps the version of its entity that wrote it (``EntitySchema``), and what reads
/// and queries do with it.
///
/// Every entity table has two columns after `daokit_checksum`: `daokit_version`, the version
/// that wrote the row, and `daokit_readable_from`, the oldest version that reads it when that is
/// older than the row's own. Both are NULL for a row of version 1 (and the second whenever it
/// would equal the first), so an entity that declares no versions writes rows exactly as before,
/// and a row of an earlier release (a table that had no such columns, given them at its first
/// write by this release) is version 1, as it was written. The checksum covers both columns.
///
/// A row is never replaced by code older than the version that wrote it (the upsert's `WHERE`,
/// ``SQLiteTable/upsertSQL``), and a row newer than the code that reads it fails to read with
/// ``StorageError/Code/newerVersion``, unless it declares that code can.
///
/// A query may translate a condition or a sort on a field into SQL only where the column holds
/// what the entity reads. Rows of an older version may not: they lack a field added since (and
/// read its default) or hold it under its old name. While the table holds such rows, those
/// fields are left to Swift, which reads the resolved entities (``queryKinds(_:table:versioning:connection:)``);
/// `migrate()` rewrites the rows, and the fields translate again.
///
/// `package`, so that the `dao` tool reads versions as the context does.
package enum SQLiteEntityVersions {
    /// The version that wrote the row; NULL for version 1.
    package static let versionColumn = "daokit_version"
    /// The oldest version that reads the row, when older than ``versionColumn``; else NULL.
    package static let readableFromColumn = "daokit_readable_from"
    /// Both columns, in table order.
    package static let columnNames = [versionColumn, readableFromColumn]

    /// The SQL of the version of a row of the table (or `excluded` row) named `table`, quoted.
    static func storedVersion(in table: String) -> String {
        "coalesce(\(table).\(versionColumn), 1)"
    }

    /// The values of the two columns in a row written by `versioning`'s entity.
    static func stamp(of versioning: EntityVersioning) -> (version: SQLiteValue, readableFrom: SQLiteValue) {
        if versioning.isInitial { return (.null, .null) }
        let readableFrom: SQLiteValue =
            versioning.readableFrom == versioning.version ? .null : .integer(Int64(versioning.readableFrom))
        return (.integer(Int64(versioning.version)), readableFrom)
    }

    /// What the stamp's non-NULL values add to the row's checksum (``SQLiteRowChecksum``).
    static func checksumContribution(of stamp: (version: SQLiteValue, readableFrom: SQLiteValue)) -> UInt32 {
        SQLiteRowChecksum.contribution(versionPrefix, stamp.version)
            ^ SQLiteRowChecksum.contribution(readableFromPrefix, stamp.readableFrom)
    }

    private static let versionPrefix = SQLiteRowChecksum.ColumnPrefix(versionColumn)
    private static let readableFromPrefix = SQLiteRowChecksum.ColumnPrefix(readableFromColumn)

    /// Makes the file ready for rows of a versioned entity, once per table and connection: marks
    /// the layout (``SQLiteSchema/versionedLayout``), and, for an entity whose older records hold
    /// fields differently, indexes `daokit_version`, so that a query learns the oldest version
    /// stored from the index (``oldestVersion(in:connection:)``) instead of a scan.
    /// Runs inside the caller's write transaction.
    static func prepareVersioned(
        _ table: inout SQLiteTable, versioning: EntityVersioning, connection: SQLiteConnection
    ) throws {
        if table.versionIndexEnsured { return }
        if case .integer(let layout)? = try connection.scalar("PRAGMA user_version"),
            layout < SQLiteSchema.versionedLayout
        {
            try connection.execute("PRAGMA user_version = \(SQLiteSchema.versionedLayout)")
        }
        if versioning.changesFields {
            let name = SQLiteDialect.quoted("daokit_version_" + table.entityName)
            try connection.execute("CREATE INDEX IF NOT EXISTS \(name) ON \(table.quotedName) (\(versionColumn))")
        }
        table.versionIndexEnsured = true
    }

    /// How to decode the row `reader` stands on (``SQLiteRowReader/loadRow()`` read it): `nil`
    /// to decode it as it is, or the plan that resolves an older version. Errors take the key
    /// from the loaded row (column 0), not from SQLite, as the row's fence requires.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/newerVersion(_:)`` for a row a newer
    ///   version wrote, ``StorageError/Kind/corruptRecord(_:)`` for a version that is not an
    ///   integer (a row without a checksum whose bytes changed).
    @inline(__always)
    static func plan(
        of reader: SQLiteRowReader, versioning: EntityVersioning, entityName: String, key: String, location: String
    ) throws -> ResolutionPlan? {
        guard let column = reader.versionColumn else {
            return versioning.isInitial
                ? nil : try versioning.plan(forStoredVersion: 1, readableFrom: nil, key: key, location: location)
        }
        func number(_ column: Int32?) throws -> Int? {
            guard let column else { return nil }
            let value = reader.value(column)
            switch value.storageClass {
            case SQLITE_NULL: return nil
            case SQLITE_INTEGER where value.integer >= 1 && value.integer <= Int64(Int32.max): return Int(value.integer)
            default:
                throw StorageError(
                    .corruptRecord("the row's entity version is not a version"), entityName: entityName,
                    key: key.isEmpty ? reader.text(0) : key, location: location)
            }
        }
        let version = try number(column) ?? 1
        if version == versioning.version { return nil }
        return try versioning.plan(
            forStoredVersion: version, readableFrom: try number(reader.readableFromColumn),
            key: key.isEmpty ? reader.text(0) : key,
            location: location)
    }

    /// `kinds` as a query on `fields` (its top-level fields) may use them on `table`: the fields
    /// that rows of an older version than the entity's hold differently
    /// (``EntityVersioning/fieldsChanged(inRecordsFrom:)``) — every field, for rows older than a
    /// migration step — are marked ``SQLiteFieldKinds/opaque`` while the table holds such rows,
    /// so that no condition or sort on them is translated and Swift answers from the resolved
    /// entities.
    static func queryKinds(
        _ kinds: [String: SQLiteFieldKinds], table: SQLiteTable, versioning: EntityVersioning,
        fields: @autoclosure () -> Set<String>, connection: SQLiteConnection
    ) throws -> [String: SQLiteFieldKinds] {
        guard versioning.changesFields, let oldest = try oldestVersion(in: table, connection: connection) else {
            return kinds
        }
        var kinds = kinds
        for name in versioning.fieldsChanged(inRecordsFrom: oldest) ?? fields() { kinds[name] = .opaque }
        return kinds
    }

    /// The oldest entity version of the table's rows (1 for a row without one), or `nil` when the
    /// table has no rows. Two lookups in the `daokit_version` index where it exists.
    static func oldestVersion(in table: SQLiteTable, connection: SQLiteConnection) throws -> Int? {
        let sql =
            table.hasVersions
            ? "SELECT coalesce((SELECT 1 FROM \(table.quotedName) WHERE \(versionColumn) IS NULL LIMIT 1), (SELECT min(\(versionColumn)) FROM \(table.quotedName)))"
            : "SELECT (SELECT 1 FROM \(table.quotedName) LIMIT 1)"
        let statement = try connection.statement(sql)
        defer { statement.reset() }
        guard try statement.step(), case .integer(let oldest) = statement.value(at: 0) else { return nil }
        return Int(clamping: oldest)
    }
}
