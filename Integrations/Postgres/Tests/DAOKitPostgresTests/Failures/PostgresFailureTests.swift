import DAOKit
import DAOKitPostgresTestSupport
import DAOKitTesting
import Foundation
import NIOPosix
import PostgresNIO
import Testing

@testable import DAOKitPostgres

/// What goes wrong between a context and its server: each failure is a ``StorageError`` naming the
/// server and the entity, nothing is half written, and the context works again afterwards.
@Suite("Postgres failures", .timeLimit(.minutes(2)))
struct PostgresFailureTests {
    private let notes = (0..<100).map { FixtureNoteEntity(id: "n\($0)", body: "batch") }

    @Test func anUnreachableServerIsAStorageErrorNamingTheServerAndTheEntity() async throws {
        var configuration = try TestServer.configuration()
        configuration.port = try TestServer.closedPort()
        configuration.connectTimeout = .seconds(2)
        let context = PostgresStorageContext(configuration: configuration)
        defer { context.close() }
        let error = try await #require(throws: StorageError.self) { try await context.count(FixtureNoteEntity.self) }
        #expect(error.entityName == FixtureNoteEntity.entityName)
        #expect(error.location == configuration.serverDescriptionForTests)
        #expect(error.description.contains(":\(configuration.port)"), "\(error)")
        #expect(error.kind.code == .io && error.description.contains("Connection refused"), "the cause: \(error)")
    }

    @Test func aWrongPasswordIsAStorageErrorSayingTheServerRefusedTheLogin() async throws {
        let configuration = try TestServer.configuration(password: "not the password")
        let context = PostgresStorageContext(configuration: configuration)
        defer { context.close() }
        let error = try await #require(throws: StorageError.self) { try await context.save(notes, mode: .upsert) }
        #expect(error.entityName == FixtureNoteEntity.entityName)
        #expect(error.location == configuration.serverDescriptionForTests)
        #expect(error.description.contains("refused the login") && error.description.contains("28P01"), "\(error)")
    }

    @Test func aStatementTimeoutFailsTheBatchWholeAndTheContextGoesOn() async throws {
        let schema = TestServer.freshSchema()
        let context = PostgresStorageContext(
            configuration: try TestServer.configuration(schema: schema, statementTimeout: .seconds(1)))
        defer { context.close() }
        try await context.save([FixtureNoteEntity(id: "before", body: "x")], mode: .upsert)
        let batch = notes
        let error = try await TestServer.whileLocked(schema: schema, table: FixtureNoteEntity.entityName) { _ in
            await #expect(throws: StorageError.self) { try await context.save(batch, mode: .upsert) }
        }
        let timeout = try #require(error)
        #expect(timeout.entityName == FixtureNoteEntity.entityName)
        #expect(
            timeout.description.contains("57014") && timeout.description.contains("statement timeout"), "\(timeout)")
        #expect(try await context.count(FixtureNoteEntity.self) == 1, "nothing of the batch was written")
        try await context.save(notes, mode: .upsert)
        #expect(try await context.count(FixtureNoteEntity.self) == 101)
    }

    @Test func aConnectionDroppedMidBatchWritesNothingAndTheNextCallWorks() async throws {
        let schema = TestServer.freshSchema()
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        try await context.save([FixtureNoteEntity(id: "before", body: "x")], mode: .upsert)
        let batch = notes
        let save = try await TestServer.whileLocked(schema: schema, table: FixtureNoteEntity.entityName) { lockHolder in
            // The batch starts once the table is locked, in a task of its own rather than an
            // `async let`: were anything here to throw, the scope would not wait for the batch
            // (which waits for the lock this scope holds); the lock is released and the test fails.
            let save = Task { try await context.save(batch, mode: .insert) }
            // The batch's transaction waits for the lock: end its connection from the server side.
            let waiting = try await TestServer.waitForBlockedBackend(
                lockHolder, schema: schema, table: FixtureNoteEntity.entityName)
            try await lockHolder.query("SELECT pg_terminate_backend(\(Int32(waiting)))", logger: TestServer.logger)
            return save
        }
        let dropped = try #require(await #expect(throws: StorageError.self) { try await save.value })
        #expect(dropped.entityName == FixtureNoteEntity.entityName)
        #expect(dropped.kind.code == .io, "\(dropped)")
        #expect(try await context.count(FixtureNoteEntity.self) == 1, "nothing of the batch was written")
        try await context.save(notes, mode: .insert)
        #expect(try await context.count(FixtureNoteEntity.self) == 101)
    }

    @Test func aSynchronousCallOnAnEventLoopThrowsInsteadOfBlockingIt() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let eventLoop = MultiThreadedEventLoopGroup.singleton.next()
        let error = try await eventLoop.submit { () -> String? in
            do {
                _ = try context.count(FixtureNoteEntity.self)
                return nil
            } catch {
                return "\(error)"
            }
        }.get()
        #expect(error?.contains("event-loop thread") == true, "\(error ?? "no error")")
        // The same call from another thread works.
        #expect(try await Task.detached { try context.count(FixtureNoteEntity.self) }.value == 0)
    }

    @Test func aServerErrorCarriesItsSQLStateMessageDetailAndHintNotTheRedactedText() async throws {
        let schema = TestServer.freshSchema()
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        try await context.save([FixtureNoteEntity(id: "before", body: "x")], mode: .upsert)
        // A trigger a database administrator added, refusing every write with a report of its own.
        try await TestServer.withConnection { connection in
            for statement in [
                """
                CREATE FUNCTION "\(schema)".refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
                RAISE EXCEPTION 'notes are read-only' USING ERRCODE = 'P0001', DETAIL = 'maintenance window', HINT = 'try after 6'; END $$
                """,
                "CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON \"\(schema)\".\"\(FixtureNoteEntity.entityName)\" FOR EACH ROW EXECUTE FUNCTION \"\(schema)\".refuse()",
            ] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: TestServer.logger)
            }
        }
        let error = try await #require(throws: StorageError.self) { try await context.save(notes, mode: .upsert) }
        #expect(error.kind.code == .io && error.entityName == FixtureNoteEntity.entityName, "\(error)")
        for part in ["SQLSTATE P0001", "notes are read-only", "detail: maintenance window", "hint: try after 6"] {
            #expect(error.description.contains(part), "\(part) in \(error)")
        }
        #expect(!error.description.contains("Generic description"), "\(error)")
    }

    @Test func aQueryOnATableDroppedBehindTheContextsBackSaysWhatTheServerSaid() async throws {
        let schema = TestServer.freshSchema()
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        try await context.save([FixtureNoteEntity(id: "a", body: "x")], mode: .upsert)
        try await TestServer.withConnection { connection in
            _ = try await connection.query(
                PostgresQuery(unsafeSQL: "DROP TABLE \"\(schema)\".\"\(FixtureNoteEntity.entityName)\""),
                logger: TestServer.logger)
        }
        // A prepared statement (postgres-nio's older interface) and a plain one.
        let queried = try await #require(throws: StorageError.self) {
            try await context.fetch(
                FixtureNoteEntity.self, matching: StorageQuery(filter: .compare("body", .equal, .string("x"))))
        }
        let counted = try await #require(throws: StorageError.self) { try await context.count(FixtureNoteEntity.self) }
        let server = try TestServer.configuration(schema: schema).serverDescriptionForTests
        for error in [queried, counted] {
            #expect(error.kind.code == .io && error.location == server)
            #expect(
                error.description.contains("SQLSTATE 42P01") && error.description.contains("does not exist"), "\(error)"
            )
            #expect(!error.description.contains("Generic description"), "\(error)")
        }
    }

    /// The error of a statement whose session the server ends under it, as a shutdown does.
    private func sessionEndedByTheServer() async throws -> any Error {
        let connection = try await TestServer.connect()
        var backend: Int32 = 0
        for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: TestServer.logger).decode(
            Int32.self)
        { backend = pid }
        let sleeping = Task { try await connection.query("SELECT pg_sleep(60)", logger: TestServer.logger).collect() }
        try await TestServer.withConnection { other in
            // Once the statement runs, end its session as `pg_ctl stop` ends every session.
            for _ in 0..<500 {
                var running = false
                let state = try await other.query(
                    "SELECT state = 'active' FROM pg_stat_activity WHERE pid = \(backend)", logger: TestServer.logger)
                for try await active in state.decode(Bool.self) { running = active }
                if running { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            _ = try await other.query("SELECT pg_terminate_backend(\(backend))", logger: TestServer.logger)
        }
        defer { Task { try? await connection.close() } }
        do {
            _ = try await sleeping.value
        } catch {
            return error
        }
        throw TestServer.Missing(variable: "an error from the terminated statement (it succeeded)")
    }

    @Test func aSessionTheServerEndedIsAPassingIOErrorWithTheServersReport() async throws {
        let failure = try await sessionEndedByTheServer()
        let error = try #require(
            PostgresFailure.storageError(failure, server: "postgres://server", entityName: "Note") as? StorageError)
        #expect(error.kind.code == .io && error.location == "postgres://server")
        #expect(
            error.description.contains("SQLSTATE 57P01") && error.description.contains("terminating connection"),
            "\(error)")
        #expect(
            !error.description.contains("context was closed") && !error.description.contains("Generic description"),
            "\(error)")
        #expect(PostgresFailure.passes(error), "the server going away is a failure that passes")
    }

    @Test func aStatementSentOnAConnectionAlreadyClosingSaysWhyAndNotThatTheContextWasClosed() async throws {
        // postgres-nio fails such a statement with `clientClosedConnection`, wrapping the error
        // that closed the connection: here, the report of the server that ended the session.
        let ended = try await sessionEndedByTheServer()
        let detail = PostgresFailure.detail(code: .clientClosedConnection, underlying: ended, contextClosed: false)
        #expect(detail.hasPrefix("the connection had closed before the statement was sent: "), "\(detail)")
        #expect(detail.contains("SQLSTATE 57P01") && !detail.contains("context was closed"), "\(detail)")
        let closed = PostgresFailure.detail(code: .clientClosedConnection, underlying: nil, contextClosed: true)
        #expect(closed == "the context was closed", "once the context is closed, it says so")
    }

    @Test func aClosedContextSaysItWasClosed() async throws {
        let context = try TestServer.context()
        try await context.save([FixtureNoteEntity(id: "a", body: "x")], mode: .upsert)
        context.close()
        let error = try await #require(throws: StorageError.self) { try await context.count(FixtureNoteEntity.self) }
        #expect(error.kind.code == .io && error.description.contains("the context was closed"), "\(error)")
    }

    @Test func anEntityNameTheServerCannotHoldIsRefusedBeforeAnythingIsSent() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let error = try await #require(throws: StorageError.self) {
            try await context.save([ReservedNameEntity(id: 1)], mode: .upsert)
        }
        #expect(error.kind == .encodingFailed && error.entityName == "daokit_mine", "\(error)")
    }
}

private struct ReservedNameEntity: Storable {
    static var entityName: String { "daokit_mine" }
    var id: Int
}
