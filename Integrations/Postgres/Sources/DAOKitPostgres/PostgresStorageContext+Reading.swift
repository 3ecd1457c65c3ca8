import DAOKit
import DAOKitSQL
import Foundation
import PostgresNIO

/// Reading by id, reading everything, counting, and reading past records that do not decode.
extension PostgresStorageContext {
    /// ``StorageContext/fetch(_:id:)``, as a prepared statement (see ``PreparedStatements``): the
    /// read an app makes most, and one whose parsing and planning cost as much as running it.
    public func fetch<E: Storable>(_ type: E.Type, id: E.ID) async throws -> E? {
        let table = try table(E.self)
        try await ensureTable(E.entityName, table: table)
        var parameters = StatementParameters()
        let key = parameters.append(text: Self.columnKey(id.storageKey))
        let versioning = try JSONRecord.Versioning.of(E.self)
        let sql = "SELECT \(Row.columns) FROM \(table) WHERE " + PostgresSchema.keyIs(key)
        let rows = try await withConnection(entityName: E.entityName, key: id.storageKey) { connection in
            try await PreparedStatements.rows(sql, parameters, on: connection).map(Row.init)
        }
        return try rows.first.map { try decode(E.self, $0, versioning) }
    }

    /// ``StorageContext/fetchAll(_:)``.
    /// - Throws: ``StorageError`` naming every record that does not decode.
    public func fetchAll<E: Storable>(_ type: E.Type) async throws -> [E] {
        let readable = try await fetchReadable(type)
        return try readable.valuesIfComplete(entityName: E.entityName, location: serverDescription)
    }

    /// ``StorageContext/fetchReadable(_:)``: every record that decodes, and the others with their errors.
    public func fetchReadable<E: Storable>(_ type: E.Type) async throws -> ReadableRecords<E, E.ID> {
        try await readRows(E.self, where: nil)
    }

    /// Every record in the rows `condition` (SQL, `nil` for every row) selects that decodes, and
    /// the others with their errors.
    func readRows<E: Storable>(_ type: E.Type, where condition: String?) async throws -> ReadableRecords<E, E.ID> {
        let versioning = try JSONRecord.Versioning.of(E.self)
        return try await readEveryRow(E.self, where: condition, into: ReadableRecords(values: [], failures: [])) {
            result, row in
            do {
                result.values.append(try self.decode(E.self, row, versioning))
            } catch let error as StorageError {
                result.failures.append(UnreadableRecord(storageKey: Self.storageKey(row.key), error: error))
            }
        }
    }

    /// ``StorageContext/storedKeys(_:)``, without decoding any record.
    public func storedKeys<E: Storable>(_ type: E.Type) async throws -> [String] {
        let table = try table(E.self)
        try await ensureTable(E.entityName, table: table)
        return try await withConnection(entityName: E.entityName) { connection in
            var keys: [String] = []
            for try await key in try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT daokit_key FROM \(table)"), logger: Self.logger
            )
            .decode(String.self) {
                keys.append(Self.storageKey(key))
            }
            return keys
        }
    }

    /// ``StorageContext/count(_:)``.
    public func count<E: Storable>(_ type: E.Type) async throws -> Int {
        let table = try table(E.self)
        try await ensureTable(E.entityName, table: table)
        return try await withConnection(entityName: E.entityName) { connection in
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), logger: Self.logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    /// One stored record as the server sent it: its `daokit_key` and its JSON text, both still
    /// bytes, so that reading many records makes a key string only for those that need one, and
    /// the entity version that wrote it.
    struct Row: Sendable {
        var keyColumn: ByteBuffer
        var json: ByteBuffer
        /// `daokit_version` (never NULL; `nil` would read as version 1).
        var version: Int?
        /// `daokit_readable_from`: `nil` when the row is readable from its own version only.
        var readableFrom: Int?
        /// Whether the row holds a record: `false` for the row a guarded query returns when it
        /// selects none (see `PostgresStorageContext+Query.swift`), whose key is NULL.
        var holdsRecord: Bool

        /// The columns a row is read from, in order.
        static let columns =
            "daokit_key, record::text, \(PostgresSchema.versionColumn), \(PostgresSchema.readableFromColumn)"

        /// The first four cells of `row` (``columns``), taken as they are: postgres-nio's generic
        /// decoding into a tuple was a visible share of reading everything in profiles. The key
        /// and record columns are `NOT NULL`; were one null, it would read as empty, and an empty
        /// record does not decode.
        init(_ row: PostgresRow) {
            var cells = row.makeIterator()
            let key = cells.next()?.bytes
            holdsRecord = key != nil
            keyColumn = key ?? ByteBuffer()
            json = cells.next()?.bytes ?? ByteBuffer()
            version = cells.next().flatMap(Self.number)
            readableFrom = cells.next().flatMap(Self.number)
        }

        /// The `integer` in a cell, read from its four bytes (see `integer(_:)` in
        /// `PostgresStorageContext+Query.swift` for why not through postgres-nio); `nil` for NULL,
        /// and 0, which is no version and fails the read, for anything else.
        private static func number(_ cell: PostgresCell) -> Int? {
            guard var bytes = cell.bytes else { return nil }
            guard bytes.readableBytes == 4, let value = bytes.readInteger(as: Int32.self) else { return 0 }
            return Int(value)
        }

        /// The `daokit_key` value (a ``PostgresStorageContext/columnKey(_:)``).
        var key: String { String(buffer: keyColumn) }
    }

    /// Reads every row of the entity's table into `result`, each with `read` as it arrives: decoding
    /// then overlaps the server's sending of the rows after it, as in a hand-written postgres-nio
    /// loop, where decoding after the last row would add the two.
    /// - Throws: what `read` throws, or a ``StorageError`` when the server fails.
    func readEveryRow<E: Storable, Result>(
        _ type: E.Type, where condition: String? = nil, into result: Result,
        _ read: @escaping (inout Result, Row) throws -> Void
    ) async throws -> Result {
        let table = try table(E.self)
        try await ensureTable(E.entityName, table: table)
        let sql = "SELECT \(Row.columns) FROM \(table)" + (condition.map { " WHERE " + $0 } ?? "")
        // `withConnection` runs its body in a task of its own and waits for it: the result (entities,
        // which need not be `Sendable`) is handed over once, after that task has finished with it.
        let transfer = try await withConnection(entityName: E.entityName) { connection in
            var result = result
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Self.logger) {
                try read(&result, Row(row))
            }
            return UncheckedTransfer(result)
        }
        return transfer.value
    }

    /// The entity a row holds, resolved through `versioning` when an older version wrote it.
    /// - Throws: ``StorageError`` naming the entity, the key and the server; with
    ///   ``StorageError/Kind/newerVersion(_:)`` for a row a newer version wrote.
    func decode<E: Storable>(_ type: E.Type, _ row: Row, _ versioning: JSONRecord.Versioning) throws -> E {
        try versioning.decode(
            E.self, from: Data(row.json.readableBytesView), storedVersion: row.version, readableFrom: row.readableFrom,
            key: Self.storageKey(row.key), location: serverDescription)
    }
}
