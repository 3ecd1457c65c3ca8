import DAOKit
import DAOKitPostgresTestSupport
import DAOKitTesting
import PostgresNIO
import Testing

@testable import DAOKitPostgres

/// A call on a pooled connection ends: with the work's value or error, when no connection comes
/// within the connect timeout, and when its connection closes under work that would otherwise
/// wait forever (as a statement postgres-nio never answers after a server restart would).
@Suite("Postgres pooled calls", .timeLimit(.minutes(1)))
struct PooledCallTests {
    @Test func workThatOutlivesItsClosedConnectionEndsTheCallWithConnectionLost() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let error = try await #require(throws: ConnectionLost.self) {
            try await PooledCall.run(on: context.client, connectTimeout: .seconds(5)) { connection in
                // Closes the connection, then waits as a never-answered statement would.
                try await connection.close()
                try await Task.sleep(for: .seconds(3_600))
                return 0
            }
        }
        #expect(error.description.contains("closed"))
        // The pool drops the closed connection and serves the next call.
        #expect(try await context.count(FixtureNoteEntity.self) == 0)
    }

    @Test func workThatEndsReturnsItsValueAndItsErrorUnchanged() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let value = try await PooledCall.run(on: context.client, connectTimeout: .seconds(5)) { connection in
            var total = 0
            for try await one in try await connection.query("SELECT 41 + 1", logger: TestServer.logger).decode(Int.self)
            { total = one }
            return total
        }
        #expect(value == 42)
        let failure = try await #require(throws: PSQLError.self) {
            try await PooledCall.run(on: context.client, connectTimeout: .seconds(5)) { connection in
                try await connection.execute("SELECT no_such_column FROM pg_class", logger: TestServer.logger)
                return 0
            }
        }
        #expect(failure.serverInfo?[.sqlState] == "42703")
    }

    @Test func noConnectionWithinTheTimeoutIsAConnectTimeoutAndRunsNothing() async throws {
        var configuration = try TestServer.configuration()
        configuration.port = try TestServer.closedPort()
        let context = PostgresStorageContext(configuration: configuration)
        defer { context.close() }
        let ran = Locked(false)
        await #expect(throws: ConnectTimeout.self) {
            try await PooledCall.run(on: context.client, connectTimeout: .milliseconds(300)) { _ in
                ran.withLock { $0 = true }
                return 0
            }
        }
        #expect(ran.withLock { $0 } == false)
    }
}
