import DAOKit

/// The salvage requirements: reading past rows that do not decode, and listing or deleting rows
/// by storage key without decoding them.
extension SQLiteStorageContext {
    /// Every row of the type that decodes as `E`, and a failure for each one that does not
    /// (``StorageError/Kind/decodingFailed`` naming its key and the database file), or whose
    /// bytes changed in the file (``StorageError/Kind/corruptRecord(_:)``: its checksum does not
    /// match, whichever column changed, the key too).
    /// - Throws: ``StorageError`` only when SQLite cannot read the table.
    public func fetchReadable<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        let entityName = try Self.checkedName(E.self)
        return try read(entityName: entityName) { table, connection in
            let statement = try connection.statement("SELECT * FROM \(table.quotedName)")
            defer { statement.reset() }
            var result = ReadableRecords<E, E.ID>(values: [], failures: [])
            guard try statement.step() else { return result }
            let reader = statement.rowReader()
            repeat {
                do {
                    result.values.append(
                        try decodeRow(E.self, reader: reader, entityName: entityName, key: "", connection: connection))
                } catch let error as StorageError where error.kind == .decodingFailed {
                    let key = reader.key
                    result.failures.append(
                        UnreadableRecord(
                            storageKey: key,
                            error: StorageError(
                                .decodingFailed, entityName: entityName, key: key, location: location,
                                underlyingError: error.underlyingError)))
                } catch let error as StorageError where error.kind.code == .corruptRecord {
                    // A damaged row, its key included: reported under the key it holds now.
                    result.failures.append(UnreadableRecord(storageKey: reader.key, error: error))
                }
            } while try statement.step()
            return result
        } ?? ReadableRecords(values: [], failures: [])
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
        notifier.post(entityName: entityName, storageKeys: keys)
    }
}
