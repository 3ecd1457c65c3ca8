import Foundation
import Logging
import PostgresNIO

/// The same operations written by hand with postgres-nio: the same table layout (a key and a
/// `jsonb` record, the same expression index), `JSONEncoder`/`JSONDecoder` straight to `Message`.
struct HandWritten {
    let client: PostgresClient
    let table: String
    static let logger = Logger(label: "raw", factory: { _ in SwiftLogNoOpLogHandler() })
    private let encoder = JSONEncoder()
    private let decoder = JSONDecoder()

    func createTable() async throws {
        try await client.query(PostgresQuery(unsafeSQL: "DROP TABLE IF EXISTS \(table)"), logger: Self.logger)
        try await client.query(
            PostgresQuery(
                unsafeSQL: "CREATE TABLE \(table) (key text COLLATE \"C\" PRIMARY KEY, record jsonb NOT NULL)"),
            logger: Self.logger)
        try await client.query(
            PostgresQuery(
                unsafeSQL: """
                    CREATE INDEX ON \(table) (((record ->> 'dialogID') COLLATE "C") NULLS FIRST, \
                    (CASE WHEN jsonb_typeof(record -> 'date') = 'number' THEN (record ->> 'date')::numeric END) NULLS FIRST)
                    """), logger: Self.logger)
    }

    func replaceAll(_ messages: [Message]) async throws {
        var binds = PostgresBindings()
        binds.append(messages.map(\.id.uuidString))
        binds.append(try messages.map { String(decoding: try encoder.encode($0), as: UTF8.self) })
        try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: Self.logger)
            try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table)"), logger: Self.logger)
            try await connection.query(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO \(table) (key, record) SELECT * FROM unnest($1::text[], $2::text[]::jsonb[]) \
                        ON CONFLICT (key) DO UPDATE SET record = EXCLUDED.record
                        """, binds: binds), logger: Self.logger)
            try await connection.query("COMMIT", logger: Self.logger)
        }
    }

    func screen(dialog: String) async throws -> [Message] {
        var binds = PostgresBindings()
        binds.append(dialog)
        return try await messages(
            PostgresQuery(
                unsafeSQL: """
                    SELECT record::text FROM \(table) WHERE ((record ->> 'dialogID') COLLATE "C") = $1 \
                    ORDER BY (CASE WHEN jsonb_typeof(record -> 'date') = 'number' THEN (record ->> 'date')::numeric END) DESC NULLS LAST LIMIT 50
                    """, binds: binds))
    }

    func readAll() async throws -> [Message] {
        try await messages(PostgresQuery(unsafeSQL: "SELECT record::text FROM \(table)"))
    }

    private func messages(_ query: PostgresQuery) async throws -> [Message] {
        var result: [Message] = []
        for try await json in try await client.query(query, logger: Self.logger).decode(ByteBuffer.self) {
            result.append(try decoder.decode(Message.self, from: Data(json.readableBytesView)))
        }
        return result
    }
}
