@testable import DAOKitPostgres
import PostgresNIO
import Testing

/// Work on a connection that closes under it ends the call instead of holding it forever, as a
/// statement postgres-nio never answers after a server restart would.
@Suite("Postgres connection watch", .timeLimit(.minutes(1)))
struct ConnectionWatchTests {
    @Test func workThatOutlivesItsClosedConnectionEndsTheCallWithConnectionLost() async throws {
        let error = try await TestServer.withConnection { connection in
            try await #require(throws: ConnectionLost.self) {
                try await ConnectionWatch.run(on: connection) { connection in
                    // Closes the connection, then waits as a never-answered statement would.
                    try await connection.close()
                    try await Task.sleep(for: .seconds(3_600))
                    return 0
                }
            }
        }
        #expect(error.description.contains("closed"))
    }

    @Test func workThatEndsReturnsItsValueAndItsErrorUnchanged() async throws {
        let value = try await TestServer.withConnection { connection in
            try await ConnectionWatch.run(on: connection) { connection in
                var total = 0
                for try await one in try await connection.query("SELECT 41 + 1", logger: TestServer.logger).decode(Int.self) { total = one }
                return total
            }
        }
        #expect(value == 42)
        let failure = try await TestServer.withConnection { connection in
            try await #require(throws: PSQLError.self) {
                try await ConnectionWatch.run(on: connection) { connection in
                    try await connection.execute("SELECT no_such_column FROM pg_class", logger: TestServer.logger)
                    return 0
                }
            }
        }
        #expect(failure.serverInfo?[.sqlState] == "42703")
    }
}
