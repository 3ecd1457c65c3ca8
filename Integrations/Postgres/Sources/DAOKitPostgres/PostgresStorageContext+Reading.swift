@_spi(DAOKitIntegrations) import DAOKit
import Foundation
import PostgresNIO

/// Reading by id, reading everything, counting, and reading past records that do not decode.
extension PostgresStorageContext {
    /// ``StorageContext/fetch(_:id:)``.
    public func fetch<E: Storable>(_ type: E.Type, id: E.ID) async throws -> E? {
        let key = Self.columnKey(id.storageKey)
        var binds = PostgresBindings()
        binds.append(key)
        let rows = try await records(E.self, where: "daokit_key = $1", binds: binds)
        guard let row = rows.first else { return nil }
        return try decode(E.self, row)
    }

    /// ``StorageContext/fetchAll(_:)``.
    /// - Throws: ``StorageError`` naming every record that does not decode.
    public func fetchAll<E: Storable>(_ type: E.Type) async throws -> [E] {
        let readable = try await fetchReadable(type)
        try StorageError.throwIfAny(readable.failures.map(\.error), entityName: E.entityName, location: serverDescription)
        return readable.values
    }

    /// ``StorageContext/fetchReadable(_:)``: every record that decodes, and the others with their errors.
    public func fetchReadable<E: Storable>(_ type: E.Type) async throws -> ReadableRecords<E, E.ID> {
        let rows = try await records(E.self, where: nil, binds: PostgresBindings())
        var result = ReadableRecords<E, E.ID>(values: [], failures: [])
        result.values.reserveCapacity(rows.count)
        for row in rows {
            do {
                result.values.append(try decode(E.self, row))
            } catch let error as StorageError {
                result.failures.append(UnreadableRecord(storageKey: Self.storageKey(row.key), error: error))
            }
        }
        return result
    }

    /// ``StorageContext/storedKeys(_:)``, without decoding any record.
    public func storedKeys<E: Storable>(_ type: E.Type) async throws -> [String] {
        let table = try table(E.self)
        try await ensureTable(E.entityName, table: table)
        return try await withConnection(entityName: E.entityName) { connection in
            var keys: [String] = []
            for try await key in try await connection.query(PostgresQuery(unsafeSQL: "SELECT daokit_key FROM \(table)"), logger: Self.logger)
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
            let rows = try await connection.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM \(table)"), logger: Self.logger)
            for try await count in rows.decode(Int.self) { return count }
            return 0
        }
    }

    /// One stored record: its key and its JSON.
    struct Row: Sendable {
        var key: String
        var json: ByteBuffer
    }

    /// The rows `SELECT … WHERE condition` returns (every row for `nil`).
    func records<E: Storable>(_ type: E.Type, where condition: String?, binds: PostgresBindings) async throws -> [Row] {
        let table = try table(E.self)
        try await ensureTable(E.entityName, table: table)
        let sql = "SELECT daokit_key, record::text FROM \(table)" + (condition.map { " WHERE " + $0 } ?? "")
        return try await withConnection(entityName: E.entityName) { connection in
            try await Self.rows(connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: Self.logger))
        }
    }

    /// The rows of a result whose first two columns are the key and the record text.
    static func rows(_ sequence: PostgresRowSequence) async throws -> [Row] {
        var rows: [Row] = []
        for try await (key, json) in sequence.decode((String, ByteBuffer).self) { rows.append(Row(key: key, json: json)) }
        return rows
    }

    /// The entity a row holds.
    /// - Throws: ``StorageError`` naming the entity, the key and the server.
    func decode<E: Storable>(_ type: E.Type, _ row: Row) throws -> E {
        try JSONRecord.decode(E.self, from: Data(row.json.readableBytesView), key: Self.storageKey(row.key), location: serverDescription)
    }
}
