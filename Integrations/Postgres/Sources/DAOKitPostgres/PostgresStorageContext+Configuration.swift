import PostgresNIO

extension PostgresStorageContext {
    /// Where a ``PostgresStorageContext`` connects and how.
    ///
    /// ```swift
    /// let store = try PostgresStorageContext(configuration: .init(
    ///     host: "db.internal", username: "app", password: secret, database: "messenger", tls: .require))
    /// ```
    public struct Configuration: Sendable {
        /// Whether the connection is encrypted.
        public enum TLS: Sendable, Hashable {
            /// Plain TCP: a server on the same machine or a private network.
            case disable
            /// TLS with the system's trust roots and host-name verification; the connection fails
            /// when the server does not offer TLS.
            case require
        }

        /// The server's host name or address.
        public var host: String
        /// The server's port; PostgreSQL's default is 5432.
        public var port: Int
        /// The role to log in as.
        public var username: String
        /// The role's password; `nil` for a server that trusts the client.
        public var password: String?
        /// The database to use.
        public var database: String
        /// Whether the connection is encrypted.
        public var tls: TLS
        /// The schema that holds DAOKit's tables (created when missing): several apps, or tests,
        /// can share one database in schemas of their own.
        public var schema: String
        /// The most connections the context's pool opens at once.
        public var maximumConnections: Int
        /// How long to wait for a connection before an operation fails with a ``StorageError``
        /// (server unreachable, refusing logins, or every connection busy).
        public var connectTimeout: Duration
        /// The server cancels a statement that runs longer (PostgreSQL's `statement_timeout`);
        /// `nil` for the server's setting. The operation then fails with a ``StorageError`` and
        /// its transaction is rolled back.
        public var statementTimeout: Duration?

        /// A configuration; only the host, user, password and database are required.
        public init(
            host: String, port: Int = 5432, username: String, password: String?, database: String,
            tls: TLS = .disable, schema: String = "public", maximumConnections: Int = 20,
            connectTimeout: Duration = .seconds(10), statementTimeout: Duration? = nil
        ) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
            self.tls = tls
            self.schema = schema
            self.maximumConnections = maximumConnections
            self.connectTimeout = connectTimeout
            self.statementTimeout = statementTimeout
        }

        /// The postgres-nio configuration of the pool.
        var clientConfiguration: PostgresClient.Configuration {
            let clientTLS: PostgresClient.Configuration.TLS
            switch tls {
            case .disable: clientTLS = .disable
            case .require: clientTLS = .require(.makeClientConfiguration())
            }
            var configuration = PostgresClient.Configuration(
                host: host, port: port, username: username, password: password,
                database: database, tls: clientTLS)
            configuration.options.maximumConnections = maximumConnections
            configuration.options.connectTimeout = connectTimeout
            if let statementTimeout {
                let milliseconds =
                    statementTimeout.components.seconds * 1000 + statementTimeout.components.attoseconds
                    / 1_000_000_000_000_000
                configuration.options.additionalStartupParameters.append(
                    ("statement_timeout", String(max(1, milliseconds))))
            }
            return configuration
        }

        /// The same server for one connection of its own; `nil` when TLS cannot be set up.
        var connectionConfiguration: PostgresConnection.Configuration? {
            let connectionTLS: PostgresConnection.Configuration.TLS
            switch tls {
            case .disable: connectionTLS = .disable
            case .require:
                guard let context = try? NIOSSLContext(configuration: .makeClientConfiguration()) else { return nil }
                connectionTLS = .require(context)
            }
            var configuration = PostgresConnection.Configuration(
                host: host, port: port, username: username, password: password,
                database: database, tls: connectionTLS)
            configuration.options.connectTimeout = .init(connectTimeout)
            return configuration
        }

        /// `postgres://user@host:port/database`, as errors name the server (never the password).
        var serverDescription: String { "postgres://\(username)@\(host):\(port)/\(database)" }
    }
}
