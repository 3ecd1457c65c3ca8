import DAOKit

/// The salvage requirements: reading past rows that do not decode, and listing or deleting rows
/// by storage key without decoding them.
extension SQLiteStorageContext {
    /// Every row of the type that decodes as `E`, and a failure for each one that does not
    /// (``StorageError/Kind/decodingFailed`` naming its key and the database file), or whose
    /// bytes changed in the file (``StorageError/Kind/corruptRecord(_:)``: its checksum does not
    /// match, whichever column changed, the key too). Damage that hides rows is a failure too:
    /// each key the table's key index lists but no row holds, by name, and a failure without a
    /// key when the walk of the table met rows out of rowid order.
    /// - Throws: ``StorageError`` only when SQLite cannot read the table (`SQLITE_CORRUPT` is a
    ///   ``StorageError/Kind/corruptRecord(_:)`` naming the file).
    public func fetchReadable<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        let entityName = try Self.checkedName(E.self)
        let versioning = try EntityVersioning.of(E.self)
        return try read(entityName: entityName) { table, connection in
            // The rowid last (named so that no field is), to see that the scan meets every row
            // once: a table scan walks the rows in rowid order, so a rowid not above the one
            // before means a damaged page led the scan back to rows it had read (which may hide
            // others), or a row's rowid changed.
            let statement = try connection.statement(
                "SELECT *, _rowid_ AS \(SQLiteRowChecksum.rowidColumnName) FROM \(table.quotedName)")
            defer { statement.reset() }
            var result = ReadableRecords<E, E.ID>(values: [], failures: [])
            guard try statement.step() else {
                statement.reset()
                try crossCheck(&result, table: table, entityName: entityName, connection: connection)
                return result
            }
            let reader = statement.rowReader()
            let rowidColumn = statement.columnCount - 1
            let rowidIsReal = !table.columns.contains("_rowid_")
            var lastRowid = Int64.min
            var outOfOrder = 0
            repeat {
                // Read anyway: the rowid itself may be what changed.
                let rowid = statement.integer(at: rowidColumn)
                if rowid <= lastRowid && rowidIsReal { outOfOrder += 1 }
                lastRowid = rowid
                try appendRow(
                    to: &result, reader: reader, versioning: versioning, entityName: entityName, connection: connection)
            } while try statement.step()
            statement.reset()
            if outOfOrder > 0 {
                result.failures.append(
                    UnreadableRecord(
                        storageKey: nil,
                        error: StorageError(
                            .corruptRecord(SQLiteRowChecksum.rowsOutOfOrder(outOfOrder)), entityName: entityName,
                            location: location)))
            }
            try crossCheck(&result, table: table, entityName: entityName, connection: connection)
            return result
        } ?? ReadableRecords(values: [], failures: [])
    }

    /// Adds the row `reader`'s statement stands on to `result`: its entity, or its failure when
    /// it does not decode (``StorageError/Kind/decodingFailed`` naming its key and the file), its
    /// bytes changed (``StorageError/Kind/corruptRecord(_:)``, under the key it holds now) or a
    /// newer entity version wrote it (``StorageError/Kind/newerVersion(_:)``).
    /// - Throws: any other failure, such as SQLite's.
    func appendRow<E: Storable>(
        to result: inout ReadableRecords<E, E.ID>, reader: SQLiteRowReader, versioning: EntityVersioning,
        entityName: String, connection: SQLiteConnection
    ) throws {
        do {
            result.values.append(
                try decodeRow(
                    E.self, reader: reader, versioning: versioning, entityName: entityName, key: "",
                    connection: connection))
        } catch let error as StorageError where error.kind == .decodingFailed {
            let key = reader.key
            result.failures.append(
                UnreadableRecord(
                    storageKey: key,
                    error: StorageError(
                        .decodingFailed, entityName: entityName, key: key, location: location,
                        underlyingError: error.underlyingError)))
        } catch let error as StorageError
            where error.kind.code == .corruptRecord || error.kind.code == .newerVersion
        {
            // A damaged row, its key included, reported under the key it holds now; or a
            // row a newer version of the entity wrote.
            result.failures.append(UnreadableRecord(storageKey: reader.key, error: error))
        }
    }

    /// Compares the rows a scan of the table found with the entries of the key's index, a second
    /// B-tree, counted without reading its cells: when a damaged page hides rows from the scan,
    /// or a row's key changed, the keys the index lists and no row holds are added to `result`
    /// as failures, by name. When they agree (always, but for damage) this costs one count of
    /// the index's pages.
    private func crossCheck<E: Storable>(
        _ result: inout ReadableRecords<E, E.ID>, table: SQLiteTable, entityName: String,
        connection: SQLiteConnection
    ) throws {
        let rows = result.values.count + result.failures.count { $0.storageKey != nil }
        let indexed = try connection.statement(
            "SELECT count(*) FROM \(table.quotedName) INDEXED BY \(table.keyIndex)")
        defer { indexed.reset() }
        guard try indexed.step() else { return }
        let count = Int(indexed.integer(at: 0))
        indexed.reset()
        // A row that failed (its checksum, or, for a row whose damaged header hides its checksum,
        // its decoding) is reported under the key it holds now, which may itself be damaged: the
        // index then still lists the real key, which is named too.
        if count == rows && result.failures.isEmpty { return }
        let scan = try connection.statement("SELECT daokit_key FROM \(table.quotedName) NOT INDEXED")
        defer { scan.reset() }
        var scanned = Set<String>()
        while try scan.step() { scanned.insert(scan.text(at: 0)) }
        let listing = try connection.statement(
            "SELECT daokit_key FROM \(table.quotedName) INDEXED BY \(table.keyIndex)")
        defer { listing.reset() }
        var hidden: [String] = []
        while try listing.step() {
            let key = listing.text(at: 0)
            if !scanned.contains(key) { hidden.append(key) }
        }
        for key in hidden.sorted() {
            result.failures.append(
                UnreadableRecord(
                    storageKey: key,
                    error: StorageError(
                        .corruptRecord(SQLiteRowChecksum.unreachableRow), entityName: entityName, key: key,
                        location: location)))
        }
        if hidden.isEmpty && count > rows {
            // More entries than rows, but every key found: the index lists a key twice.
            result.failures.append(
                UnreadableRecord(
                    storageKey: nil,
                    error: StorageError(
                        .corruptRecord(SQLiteRowChecksum.rowsAndIndexDisagree(rows: rows, indexed: count)),
                        entityName: entityName, location: location)))
        }
        // Fewer entries than rows: rows the index does not list read intact here, and
        // `read(id:)` reports each of them (its misses know which rows the index does not lead
        // to: SQLiteKeyIndexCheck).
    }

    /// The storage keys of every row of the type, without decoding any.
    /// - Throws: ``StorageError`` with the SQLite failure.
    public func storedKeys<E: Storable>(_ type: E.Type) throws -> [String] {
        let entityName = try Self.checkedName(E.self)
        return try read(entityName: entityName) { table, connection in
            let statement = try connection.statement("SELECT daokit_key FROM \(table.quotedName)")
            defer { statement.reset() }
            var keys: [String] = []
            while try statement.step() { keys.append(statement.text(at: 0)) }
            return keys
        } ?? []
    }

    /// Removes the rows under these storage keys in one transaction, without reading them;
    /// unknown keys are ignored.
    /// - Throws: ``StorageError`` with the SQLite failure; nothing is removed then.
    public func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) throws {
        if storageKeys.isEmpty { return }
        let entityName = try Self.checkedName(E.self)
        let keys = storageKeys.map(Self.normalized)
        try write(entityName: entityName) { table, connection in
            let statement = try connection.statement("DELETE FROM \(table.quotedName) WHERE daokit_key = ?")
            for key in keys {
                statement.reset()
                statement.bindText(key, at: 1)
                try statement.run()
            }
        }
        announce(entityName: entityName, storageKeys: keys)
    }
}
