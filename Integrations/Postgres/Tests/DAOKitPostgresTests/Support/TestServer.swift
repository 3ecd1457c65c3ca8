import DAOKit
import DAOKitPostgres
import Foundation
import Logging
import NIOPosix
import PostgresNIO
import Testing

/// The throwaway server `Scripts/with-throwaway-server.sh` started, read from the environment.
///
/// Every test gets a schema of its own (``context()``), so suites run in parallel on one database
/// without seeing each other's tables.
enum TestServer {
    /// Why a test cannot run: the tests need the server the script starts, and fail without it.
    struct Missing: Error, CustomStringConvertible {
        let variable: String
        var description: String {
            "\(variable) is not set: run the DAOKitPostgres tests through Integrations/Postgres/Scripts/with-throwaway-server.sh "
                + "(e.g. `Scripts/with-throwaway-server.sh swift test` in Integrations/Postgres), which starts the PostgreSQL server they use"
        }
    }

    static func variable(_ name: String) throws -> String {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
            throw Missing(variable: name)
        }
        return value
    }

    /// The server's configuration, in a fresh schema unless one is given.
    static func configuration(
        schema: String = freshSchema(), password: String? = nil,
        statementTimeout: Duration? = nil
    ) throws -> PostgresStorageContext.Configuration {
        guard let port = Int(try variable("DAOKIT_PG_PORT")) else { throw Missing(variable: "DAOKIT_PG_PORT") }
        return PostgresStorageContext.Configuration(
            host: try variable("DAOKIT_PG_HOST"), port: port, username: try variable("DAOKIT_PG_USER"),
            password: try password ?? variable("DAOKIT_PG_PASSWORD"), database: try variable("DAOKIT_PG_DATABASE"),
            schema: schema, maximumConnections: 4, connectTimeout: .seconds(5), statementTimeout: statementTimeout)
    }

    /// A schema name no other test uses.
    static func freshSchema() -> String {
        "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
    }

    /// A context with a pool of its own, in a fresh schema.
    static func context(schema: String = freshSchema()) throws -> PostgresStorageContext {
        PostgresStorageContext(configuration: try configuration(schema: schema))
    }

    /// A connection of its own (outside any context), as another client would have; the caller closes it.
    static func connect() async throws -> PostgresConnection {
        let configuration = try configuration()
        return try await PostgresConnection.connect(
            configuration: .init(
                host: configuration.host, port: configuration.port, username: configuration.username,
                password: configuration.password, database: configuration.database, tls: .disable),
            id: 1, logger: Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    /// Runs SQL on a connection of its own (outside any context), as another client would.
    static func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let connection = try await connect()
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

extension TestServer {
    static let logger = Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A loopback port nothing listens on: bound and released, so the kernel just gave it out.
    static func closedPort() throws -> Int {
        let socket = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0)
            .wait()
        let port = socket.localAddress!.port!
        try socket.close().wait()
        return port
    }

    /// Runs `body` while another connection holds an exclusive lock on a table, then releases it.
    static func whileLocked<T: Sendable>(
        schema: String, table: String,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            try await connection.query(
                PostgresQuery(unsafeSQL: "LOCK TABLE \"\(schema)\".\"\(table)\" IN ACCESS EXCLUSIVE MODE"),
                logger: logger)
            do {
                let result = try await body(connection)
                try await connection.query("ROLLBACK", logger: logger)
                return result
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// The process id of a backend waiting for the lock on the table, once there is one (polled:
    /// it appears when the other task's statement reaches the server). Other tests' backends,
    /// which wait for other tables, are never chosen.
    static func waitForBlockedBackend(_ connection: PostgresConnection, schema: String, table: String) async throws
        -> Int
    {
        let relation = "\"\(schema)\".\"\(table)\""
        for _ in 0..<2_000 {
            let rows = try await connection.query(
                """
                SELECT pid FROM pg_locks WHERE relation = \(relation)::regclass AND NOT granted
                """, logger: logger)
            for try await pid in rows.decode(Int.self) { return pid }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw Missing(variable: "a backend waiting for the lock (none appeared)")
    }
}

extension PostgresStorageContext.Configuration {
    /// How the context names this server in errors.
    var serverDescriptionForTests: String { "postgres://\(username)@\(host):\(port)/\(database)" }
}
