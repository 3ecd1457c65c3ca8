import CSQLite
import DAOKit
import DAOKitSQL
import Foundation

/// What a context knows of one entity's table: its field columns and the kinds they held.
///
/// Everything in it is a fact of the database once committed (a column exists, a kind is recorded,
/// the indexes exist), so what one of the context's connections learned serves the others: a
/// transaction's connection starts from the context's knowledge and hands what it learned back at
/// its commit. A rolled-back change is forgotten with the knowledge of it. Another process may
/// have changed the table since (widened it); writes look again when a row needs a column not
/// known here (``SQLiteSchema/prepareTable(_:entityName:rows:indexes:versioning:connection:)``).
struct SQLiteTable {
    let entityName: String
    /// The table name as an SQL identifier.
    let quotedName: String
    /// The field columns, in table order (after `daokit_key`).
    var columns: [String]
    /// The kinds each column has held, as far as this context has seen (a subset of what
    /// `daokit_field_kinds` records; only used to skip recording a kind twice).
    var recordedKinds: [String: SQLiteFieldKinds]
    /// Whether this context has created the entity type's declared indexes.
    var indexesEnsured = false
    /// Whether this context has created the entity type's unique indexes, which a save creates
    /// after writing its rows (see ``SQLiteSchema/ensureUniqueIndexes(_:in:connection:)``).
    var uniqueIndexesEnsured = false
    /// Whether the table has the `daokit_checksum` column (a table written before checksums gets
    /// it at its first write by this release).
    var hasChecksum = true
    /// Whether the table has the entity version columns (``SQLiteEntityVersions``); a table
    /// written before versions gets them at its first write by this release.
    var hasVersions = true
    /// Whether this context has created the index on `daokit_version` that tells a query how old
    /// the oldest stored row is (only for entities whose older records hold fields differently).
    var versionIndexEnsured = false

    init(entityName: String, columns: [String], recordedKinds: [String: SQLiteFieldKinds]) {
        self.entityName = entityName
        self.quotedName = SQLiteDialect.quoted(entityName)
        self.columns = columns
        self.recordedKinds = recordedKinds
    }

    /// The index SQLite keeps for the `daokit_key` primary key, as an SQL identifier: a second
    /// B-tree beside the table's, which reads compare with the table (see `fetchReadable`).
    var keyIndex: String { SQLiteDialect.quoted("sqlite_autoindex_\(entityName)_1") }

    /// The write of a whole row: the key, then every field column in order, then the row's
    /// checksum (``SQLiteRowChecksum``), then its entity version and the oldest version that
    /// reads it (``SQLiteEntityVersions``); a row stored under the key is updated in place —
    /// unless a newer version of the entity wrote it: then nothing changes (the connection's
    /// ``SQLiteConnection/changes`` is 0), and the save fails rather than erase what this code
    /// does not know.
    ///
    /// Not `INSERT OR REPLACE`: its REPLACE deletes whatever row holds the values of any unique
    /// constraint, a unique index's as well as the key's, so a violation would pass silently; and
    /// deleting and inserting moves the row to a new rowid, which rewrites a page of the key's
    /// index and of every other index on each write, where an update in place rewrites the
    /// table's page and the indexes whose columns changed.
    var upsertSQL: String {
        let fields =
            columns.map(SQLiteDialect.quoted) + [SQLiteRowChecksum.columnName] + SQLiteEntityVersions.columnNames
        let names = (["daokit_key"] + fields).joined(separator: ", ")
        let marks = Array(repeating: "?", count: fields.count + 1).joined(separator: ", ")
        let updates = fields.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
        return "INSERT INTO \(quotedName) (\(names)) VALUES (\(marks))"
            + " ON CONFLICT (daokit_key) DO UPDATE SET \(updates)"
            + " WHERE \(SQLiteEntityVersions.storedVersion(in: quotedName)) <= \(SQLiteEntityVersions.storedVersion(in: "excluded"))"
    }
}

/// The database's own layout: the file's identity (`application_id`, `user_version`), the
/// `daokit_field_kinds` table, and each entity's table, created and widened on first use.
///
/// Each entity table also has a `daokit_checksum` column (last, or added by the first write of
/// this release to a table of an earlier one): ``SQLiteRowChecksum``. It is not a field: the
/// field columns never list it.
///
/// Layout (see the article "SQLite", "Layout"): one table per entity type, named after
/// ``Storable/entityName``; a `daokit_key TEXT PRIMARY KEY` column with the record's storage key
/// (NFC), then one column per top-level coding key, without a declared type (so each value keeps
/// the storage class it was bound with). Indexes use the ``SwiftStringCollation`` on every
/// column, as the translated queries do; the columns themselves keep SQLite's default, so the
/// `sqlite3` shell can filter and sort them (by bytes). A column is added
/// when a field first appears, and never removed; a record without a field has NULL there.
enum SQLiteSchema {
    /// `application_id` of a DAOKit database: "DAOK".
    static let applicationID: Int64 = 0x4441_4F4B
    /// `user_version` of a new file: the first layout, which every release reads.
    static let layoutVersion: Int64 = 1
    /// `user_version` once a row carries an entity version (``SQLiteEntityVersions``): a release
    /// from before versions would read such a row as the first version and, rewriting it, leave
    /// its stamp on a record of another shape, so it must refuse the file.
    static let versionedLayout: Int64 = 2
    /// The newest layout this code reads.
    static let newestLayout: Int64 = versionedLayout
    /// The prefix of DAOKit's own tables; an entity type may not be named with it.
    static let reservedPrefix = "daokit_"

    /// Checks that the database is a DAOKit store (or empty, and then makes it one).
    /// - Throws: ``SQLiteError`` from SQLite (`SQLITE_NOTADB` for a file that is not a
    ///   database), or ``StorageError`` with ``StorageError/Kind/wrongFormat(_:)`` for another
    ///   application's database or a newer layout.
    static func prepare(_ connection: SQLiteConnection) throws {
        // The first read of the file: a file that is not a database fails here.
        let identity = try connection.scalar("PRAGMA application_id")
        let version = try connection.scalar("PRAGMA user_version")
        guard case .integer(let application)? = identity, case .integer(let layout)? = version else {
            throw SQLiteError(extendedResultCode: SQLITE_CORRUPT, message: "cannot read the database header")
        }
        if application == applicationID {
            guard layout <= newestLayout else {
                throw StorageError(
                    .wrongFormat("DAOKit SQLite layout \(layout); this version reads up to \(newestLayout)"),
                    location: connection.location)
            }
            return
        }
        let tables = try connection.scalar("SELECT count(*) FROM sqlite_schema")
        guard application == 0, case .integer(0)? = tables else {
            throw StorageError(
                .wrongFormat("an SQLite database that is not a DAOKit store (application_id \(application))"),
                location: connection.location)
        }
        if connection.isReadOnly { return }  // an empty file nobody may write: nothing to set up
        try connection.transaction(writing: true) {
            try connection.execute(
                """
                PRAGMA application_id = \(applicationID);
                PRAGMA user_version = \(layoutVersion);
                CREATE TABLE IF NOT EXISTS daokit_field_kinds (
                    entity TEXT NOT NULL, field TEXT NOT NULL, kind TEXT NOT NULL,
                    PRIMARY KEY (entity, field, kind)) WITHOUT ROWID;
                """)
        }
    }

    /// The table of `entityName` as it is in the database, or `nil` when it does not exist yet.
    /// - Throws: ``SQLiteError`` when the table of another entity type, whose name differs only in
    ///   case, is in the way: SQLite's table names ignore ASCII case.
    static func load(_ entityName: String, connection: SQLiteConnection) throws -> SQLiteTable? {
        let existing = try connection.statement(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE")
        existing.bindText(entityName, at: 1)
        let found = try existing.step() ? existing.text(at: 0) : nil
        existing.reset()
        guard let found else { return nil }
        guard found == entityName else {
            throw SQLiteError(
                extendedResultCode: SQLITE_MISUSE,
                message:
                    "the table \(found) of another entity type is in the way: SQLite table names ignore case, so entity names must differ in more than case"
            )
        }
        let columns = try columnNames(of: entityName, connection: connection)
        guard !columns.isEmpty else { return nil }
        let reserved = Set(["daokit_key", SQLiteRowChecksum.columnName] + SQLiteEntityVersions.columnNames)
        var table = SQLiteTable(
            entityName: entityName, columns: columns.filter { !reserved.contains($0) },
            recordedKinds: try kinds(of: entityName, connection: connection))
        table.hasChecksum = columns.contains(SQLiteRowChecksum.columnName)
        table.hasVersions = SQLiteEntityVersions.columnNames.allSatisfy(columns.contains)
        return table
    }

    /// Every column of the table of `entityName`, in table order (none when it does not exist).
    private static func columnNames(of entityName: String, connection: SQLiteConnection) throws -> [String] {
        let statement = try connection.statement("SELECT name FROM pragma_table_info(?) ORDER BY cid")
        defer { statement.reset() }
        statement.bindText(entityName, at: 1)
        var columns: [String] = []
        while try statement.step() { columns.append(statement.text(at: 0)) }
        return columns
    }

    /// The kinds every field of `entityName` has held, by field.
    static func kinds(of entityName: String, connection: SQLiteConnection) throws -> [String: SQLiteFieldKinds] {
        let statement = try connection.statement("SELECT field, kind FROM daokit_field_kinds WHERE entity = ?")
        statement.bindText(entityName, at: 1)
        var kinds: [String: SQLiteFieldKinds] = [:]
        while try statement.step() {
            kinds[statement.text(at: 0), default: []].insert(SQLiteFieldKinds(name: statement.text(at: 1)))
        }
        return kinds
    }

    /// Makes the table able to store `rows` (creating it, adding columns, recording kinds) and
    /// creates the declared `indexes`. Runs inside the caller's write transaction.
    static func prepareTable(
        _ cached: SQLiteTable?, entityName: String, rows: [SQLiteEncodedRow], indexes: [StorageIndex],
        versioning: EntityVersioning, connection: SQLiteConnection
    ) throws -> SQLiteTable {
        var table: SQLiteTable
        var wanted: [String] = []  // field columns the rows or the indexes need
        for row in rows { for name in row.names where !wanted.contains(name) { wanted.append(name) } }
        for index in indexes {
            for field in index.fields where field.keys.count == 1 && !wanted.contains(field.keys[0]) {
                wanted.append(field.keys[0])
            }
        }
        if let cached, wanted.allSatisfy(cached.columns.contains) {
            table = cached
        } else if let existing = try load(entityName, connection: connection) {
            table = existing  // another connection may have widened it
            for name in wanted where !table.columns.contains(name) {
                try connection.execute("ALTER TABLE \(table.quotedName) ADD COLUMN \(columnDefinition(name))")
                table.columns.append(name)
            }
        } else {
            table = SQLiteTable(entityName: entityName, columns: wanted, recordedKinds: [:])
            let definitions =
                (["daokit_key TEXT NOT NULL PRIMARY KEY"] + wanted.map(columnDefinition)
                + [SQLiteRowChecksum.columnName] + SQLiteEntityVersions.columnNames)
                .joined(separator: ", ")
            try connection.execute("CREATE TABLE \(table.quotedName) (\(definitions))")
        }
        if !table.hasChecksum {
            // A table of an earlier release: its rows stay readable unchecked (NULL), and every
            // row written from now on carries its checksum. Another connection may have added the
            // column since this one looked.
            if try load(entityName, connection: connection)?.hasChecksum != true {
                try connection.execute("ALTER TABLE \(table.quotedName) ADD COLUMN \(SQLiteRowChecksum.columnName)")
            }
            table.hasChecksum = true
        }
        if !table.hasVersions {
            // A table of an earlier release: its rows are version 1 (NULL), as they were written.
            // Another connection may have added the columns since this one looked.
            let present = Set(try columnNames(of: entityName, connection: connection))
            for name in SQLiteEntityVersions.columnNames where !present.contains(name) {
                try connection.execute("ALTER TABLE \(table.quotedName) ADD COLUMN \(name)")
            }
            table.hasVersions = true
        }
        if !versioning.isInitial {
            try SQLiteEntityVersions.prepareVersioned(&table, versioning: versioning, connection: connection)
        }
        try recordKinds(of: rows, in: &table, connection: connection)
        if !table.indexesEnsured {
            for index in indexes where !index.isUnique {
                let fields = index.fields.filter { $0.keys.count == 1 }.map { $0.keys[0] }
                // Nested paths are not indexed (see the SQLite article).
                guard fields.count == index.fields.count else { continue }
                let name = SQLiteDialect.quoted(indexName(of: index, entityName: entityName))
                let columns = fields.map { SQLiteDialect.quoted($0) + " COLLATE " + SwiftStringCollation.name }
                try connection.execute(
                    "CREATE INDEX IF NOT EXISTS \(name) ON \(table.quotedName) (\(columns.joined(separator: ", ")))")
            }
            for index in indexes where index.isUnique {
                // A unique index must be kept, so one SQLite cannot keep is refused.
                guard index.fields.allSatisfy({ $0.keys.count == 1 }) else {
                    let fields = index.fields.map(\.description).joined(separator: ", ")
                    throw StorageError(
                        .unsupported(
                            "SQLite keeps unique indexes on top-level fields only, and (\(fields)) reads a nested one"),
                        entityName: entityName)
                }
            }
            table.indexesEnsured = true
        }
        return table
    }

    /// Creates the SQLite `UNIQUE` indexes of `indexes` (the unique ones), inside the caller's
    /// write transaction, after it wrote its rows: an index declared over rows that break it —
    /// an app that made an index unique, or data written before — then fails the write that would
    /// create it, naming two rows that hold equal values, and a write that puts the data right
    /// creates it. SQLite keeps it from then on, for every connection and process.
    /// - Throws: ``StorageError/Code/uniqueViolation`` naming two rows, or an ``SQLiteError``.
    static func ensureUniqueIndexes(
        _ indexes: [StorageIndex], in table: inout SQLiteTable, connection: SQLiteConnection
    )
        throws
    {
        if table.uniqueIndexesEnsured { return }
        for index in indexes where index.isUnique {
            let name = SQLiteDialect.quoted(indexName(of: index, entityName: table.entityName))
            let columns = index.fields.map {
                SQLiteDialect.quoted($0.keys[0]) + " COLLATE " + SwiftStringCollation.name
            }
            do {
                try connection.execute(
                    "CREATE UNIQUE INDEX IF NOT EXISTS \(name) ON \(table.quotedName) (\(columns.joined(separator: ", ")))"
                )
            } catch {
                guard error.extendedResultCode == constraintUnique else { throw error }
                throw try duplicates(of: index, in: table, connection: connection)
            }
        }
        table.uniqueIndexesEnsured = true
    }

    /// `SQLITE_CONSTRAINT_UNIQUE`, which Swift does not import (a macro built of two others).
    static let constraintUnique: Int32 = 19 | (8 << 8)

    /// The name of the SQLite index of a declared index: `daokit_index_<entity>_<fields>`, or
    /// `daokit_unique_<entity>_<fields>` for a unique one (so that declaring an index unique
    /// creates a new one, rather than finding the plain one under its name).
    static func indexName(of index: StorageIndex, entityName: String) -> String {
        (index.isUnique ? "daokit_unique_" : "daokit_index_") + entityName + "_"
            + index.fields.map(\.description).joined(separator: "_")
    }

    /// The violation of a unique index declared over rows that break it: two rows that hold
    /// equal values, the greater key named as the refused one.
    private static func duplicates(
        of index: StorageIndex, in table: SQLiteTable, connection: SQLiteConnection
    ) throws -> StorageError {
        let columns = index.fields.map { SQLiteDialect.quoted($0.keys[0]) }
        let present = columns.map { "\($0) IS NOT NULL" }.joined(separator: " AND ")
        let grouping = columns.map { "\($0) COLLATE \(SwiftStringCollation.name)" }.joined(separator: ", ")
        let group = try connection.statement(
            "SELECT \(columns.joined(separator: ", ")) FROM \(table.quotedName) WHERE \(present) GROUP BY \(grouping) HAVING count(*) > 1 LIMIT 1"
        )
        defer { group.reset() }
        guard try group.step() else {
            return UniqueIndexViolation.error(entityName: table.entityName, key: "", index: index, existingKey: nil)
        }
        let values = (0..<columns.count).map { group.value(at: Int32($0)) }
        let keys = try holders(of: values, in: columns, excluding: nil, limit: 2, table: table, connection: connection)
        return UniqueIndexViolation.error(
            entityName: table.entityName, key: keys.last ?? "", index: index,
            existingKey: keys.count > 1 ? keys[0] : nil)
    }

    /// The keys of the rows holding `values` in `columns` (quoted), compared as the unique index
    /// compares them, in key order, besides `excluding`.
    static func holders(
        of values: [SQLiteValue], in columns: [String], excluding key: String?, limit: Int, table: SQLiteTable,
        connection: SQLiteConnection
    ) throws -> [String] {
        var condition = columns.map { "\($0) = ? COLLATE \(SwiftStringCollation.name)" }.joined(separator: " AND ")
        if key != nil { condition += " AND daokit_key <> ?" }
        let statement = try connection.statement(
            "SELECT daokit_key FROM \(table.quotedName) WHERE \(condition) ORDER BY daokit_key LIMIT \(limit)")
        defer { statement.reset() }
        for (position, value) in values.enumerated() { try statement.bind(value, at: Int32(position + 1)) }
        if let key { _ = statement.bindText(key, at: Int32(values.count + 1)) }
        var keys: [String] = []
        while try statement.step() { keys.append(statement.text(at: 0)) }
        return keys
    }

    /// Records in `daokit_field_kinds` every (field, kind) of `rows` not recorded yet.
    private static func recordKinds(
        of rows: [SQLiteEncodedRow], in table: inout SQLiteTable, connection: SQLiteConnection
    ) throws {
        var new: [String: SQLiteFieldKinds] = [:]
        for row in rows {
            for (position, name) in row.names.enumerated() {
                let kind = row.kinds[position]
                if !(table.recordedKinds[name]?.contains(kind) ?? false) && !(new[name]?.contains(kind) ?? false) {
                    new[name, default: []].insert(kind)
                }
            }
        }
        if new.isEmpty { return }
        let statement = try connection.statement(
            "INSERT OR IGNORE INTO daokit_field_kinds (entity, field, kind) VALUES (?, ?, ?)")
        for (name, kinds) in new {
            for kind in kinds.names {
                statement.reset()
                statement.bindText(table.entityName, at: 1)
                statement.bindText(name, at: 2)
                statement.bindText(kind, at: 3)
                try statement.run()
            }
            table.recordedKinds[name, default: []].formUnion(kinds)
        }
    }

    /// A field column: no declared type, so each value keeps the storage class it was bound with.
    private static func columnDefinition(_ name: String) -> String {
        SQLiteDialect.quoted(name)
    }
}
