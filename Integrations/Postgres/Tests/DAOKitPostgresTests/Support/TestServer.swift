import DAOKit
import DAOKitPostgres
import Foundation
import Logging
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
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { throw Missing(variable: name) }
        return value
    }

    /// The server's configuration, in a fresh schema unless one is given.
    static func configuration(schema: String = freshSchema(), password: String? = nil,
                              statementTimeout: Duration? = nil) throws -> PostgresStorageContext.Configuration {
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

    /// Runs SQL on a connection of its own (outside any context), as another client would.
    static func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        let configuration = try configuration()
        let connection = try await PostgresConnection.connect(
            configuration: .init(host: configuration.host, port: configuration.port, username: configuration.username,
                                 password: configuration.password, database: configuration.database, tls: .disable),
            id: 1, logger: Logger(label: "tests", factory: { _ in SwiftLogNoOpLogHandler() }))
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
