import DAOKit
import DAOKitPostgresTestSupport
import DAOKitTesting
import Foundation
import PostgresNIO
import Testing

@testable import DAOKitPostgres

/// Queries run as named prepared statements, kept per connection: prepared once, bounded, prepared
/// again when the server lost them, forgotten with their connection, and failing as every other
/// statement fails.
@Suite("Postgres prepared statements", .timeLimit(.minutes(2)))
struct PreparedStatementsTests {
    /// The statements prepared in `connection`'s session, as the server lists them.
    private func serverCount(on connection: PostgresConnection) async throws -> Int {
        for try await count in try await connection.query(
            "SELECT count(*) FROM pg_prepared_statements", logger: TestServer.logger
        )
        .decode(Int.self) { return count }
        return -1
    }

    /// The one text cell of each row `sql` returns for `text`, run prepared.
    private func texts(_ sql: String, _ text: String, on connection: PostgresConnection) async throws -> [String] {
        var parameters = StatementParameters()
        _ = parameters.append(text: text)
        return try await PreparedStatements.rows(sql, parameters, on: connection).map { row in
            var cells = row.makeIterator()
            return String(buffer: cells.next()?.bytes ?? ByteBuffer())
        }
    }

    @Test func aStatementIsPreparedOncePerConnectionAndAnswersEveryValue() async throws {
        try await TestServer.withConnection { (connection: PostgresConnection) async throws in
            for word in ["a", "b'c", "d"] {
                #expect(try await texts("SELECT $1::text || '!'", word, on: connection) == [word + "!"])
            }
            #expect(try await serverCount(on: connection) == 1)
            #expect(PreparedStatements.count(on: connection) == 1)
        }
    }

    @Test func aConnectionKeepsAtMostTheLimitAndTheLeastRecentlyUsedGoesFirst() async throws {
        try await TestServer.withConnection { (connection: PostgresConnection) async throws in
            let limit = PreparedStatements.limit
            for number in 0...limit {
                // Statement 0 is used again before each new one, so it is never the least recent.
                #expect(try await texts("SELECT $1::text || ' 0'", "s", on: connection) == ["s 0"])
                if number > 0 {
                    #expect(try await texts("SELECT $1::text || ' \(number)'", "s", on: connection) == ["s \(number)"])
                }
            }
            #expect(try await serverCount(on: connection) == limit)
            #expect(PreparedStatements.count(on: connection) == limit)
            // Statement 1 was evicted, and the server no longer has it; asking for it prepares it again.
            let names = try await connection.query(
                "SELECT statement FROM pg_prepared_statements", logger: TestServer.logger
            ).decode(String.self)
            var statements: [String] = []
            for try await statement in names { statements.append(statement) }
            #expect(statements.contains("SELECT $1::text || ' 0'"))
            #expect(!statements.contains("SELECT $1::text || ' 1'"))
            #expect(try await texts("SELECT $1::text || ' 1'", "s", on: connection) == ["s 1"])
            #expect(try await serverCount(on: connection) == limit)
        }
    }

    @Test func aStatementTheServerDroppedIsPreparedAgain() async throws {
        try await TestServer.withConnection { (connection: PostgresConnection) async throws in
            #expect(try await texts("SELECT upper($1::text)", "x", on: connection) == ["X"])
            try await connection.query("DEALLOCATE ALL", logger: TestServer.logger)
            #expect(try await texts("SELECT upper($1::text)", "y", on: connection) == ["Y"])
            #expect(try await serverCount(on: connection) == 1)
        }
    }

    @Test func aClosedConnectionsStatementsAreForgotten() async throws {
        let connection = try await TestServer.withConnection { (connection: PostgresConnection) async throws in
            #expect(try await texts("SELECT lower($1::text)", "Z", on: connection) == ["z"])
            #expect(PreparedStatements.count(on: connection) == 1)
            return connection
        }
        try await connection.closeFuture.get()
        // The callback that forgets them runs on the connection's event loop after it closed.
        try await connection.eventLoop.submit {}.get()
        #expect(PreparedStatements.count(on: connection) == 0)
    }

    @Test func aServerErrorInAPreparedStatementNamesItsSQLStateAndLeavesTheSessionUsable() async throws {
        try await TestServer.withConnection { (connection: PostgresConnection) async throws in
            let error = try #require(
                await #expect(throws: (any Error).self) {
                    _ = try await texts("SELECT (1 / length($1::text))::text", "", on: connection)
                })
            #expect(
                PostgresFailure.detail(of: error).contains("SQLSTATE 22012"), "\(PostgresFailure.detail(of: error))")
            #expect(!PostgresFailure.endsTheSession(error))
            #expect(try await texts("SELECT (1 / length($1::text))::text", "a", on: connection) == ["1"])
        }
    }

    @Test func aStatementThatNoLongerParsesFailsWithoutBeingKept() async throws {
        try await TestServer.withConnection { (connection: PostgresConnection) async throws in
            let error = try #require(
                await #expect(throws: (any Error).self) {
                    _ = try await texts("SELECT $1::text FROM no_such_table", "a", on: connection)
                })
            #expect(
                PostgresFailure.detail(of: error).contains("SQLSTATE 42P01"), "\(PostgresFailure.detail(of: error))")
            #expect(PreparedStatements.count(on: connection) == 0)
            #expect(try await serverCount(on: connection) == 0)
        }
    }

    @Test func aQueryThatTimesOutIsAStorageErrorSayingSoAndTheNextOneAnswers() async throws {
        let schema = TestServer.freshSchema()
        let context = PostgresStorageContext(
            configuration: try TestServer.configuration(schema: schema, statementTimeout: .seconds(1)))
        defer { context.close() }
        let notes = (0..<5).map { FixtureNoteEntity(id: "n\($0)", body: "b\($0 % 2)") }
        try await context.save(notes, mode: .upsert)
        let query = StorageQuery(filter: .compare("body", .equal, .string("b1")))
        #expect(try await context.fetch(FixtureNoteEntity.self, matching: query).map(\.id).sorted() == ["n1", "n3"])
        let error = try await TestServer.whileLocked(schema: schema, table: FixtureNoteEntity.entityName) { _ in
            await #expect(throws: StorageError.self) {
                _ = try await context.fetch(FixtureNoteEntity.self, matching: query)
            }
        }
        let timeout = try #require(error)
        #expect(timeout.entityName == FixtureNoteEntity.entityName)
        #expect(
            timeout.description.contains("57014") && timeout.description.contains("statement timeout"), "\(timeout)")
        #expect(try await context.fetch(FixtureNoteEntity.self, matching: query).map(\.id).sorted() == ["n1", "n3"])
        #expect(try await context.count(FixtureNoteEntity.self, matching: .compare("body", .equal, .string("b0"))) == 3)
    }

    @Test func aQueryWhoseConnectionTheServerEndsIsAStorageErrorAndTheNextOneAnswers() async throws {
        let schema = TestServer.freshSchema()
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        let notes = (0..<5).map { FixtureNoteEntity(id: "n\($0)", body: "b\($0 % 2)") }
        try await context.save(notes, mode: .upsert)
        let query = StorageQuery(filter: .compare("body", .equal, .string("b1")))
        #expect(try await context.fetch(FixtureNoteEntity.self, matching: query).map(\.id).sorted() == ["n1", "n3"])
        let fetch = try await TestServer.whileLocked(schema: schema, table: FixtureNoteEntity.entityName) {
            lockHolder in
            // A task of its own, not `async let`: see PostgresFailureTests' dropped batch.
            let fetch = Task { try await context.fetch(FixtureNoteEntity.self, matching: query).map(\.id) }
            let waiting = try await TestServer.waitForBlockedBackend(
                lockHolder, schema: schema, table: FixtureNoteEntity.entityName)
            try await lockHolder.query("SELECT pg_terminate_backend(\(Int32(waiting)))", logger: TestServer.logger)
            return fetch
        }
        let dropped = try #require(await #expect(throws: StorageError.self) { _ = try await fetch.value })
        #expect(dropped.entityName == FixtureNoteEntity.entityName)
        #expect(dropped.kind.code == .io, "\(dropped)")
        #expect(try await context.fetch(FixtureNoteEntity.self, matching: query).map(\.id).sorted() == ["n1", "n3"])
    }
}
