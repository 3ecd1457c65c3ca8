import DAOKit
import DAOKitPostgres
import DAOKitPostgresTestSupport
import DAOKitTesting
import Foundation
import NIOPosix
import PostgresNIO
import Testing

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
        let context = PostgresStorageContext(configuration: try TestServer.configuration(schema: schema, statementTimeout: .seconds(1)))
        defer { context.close() }
        try await context.save([FixtureNoteEntity(id: "before", body: "x")], mode: .upsert)
        let batch = notes
        let error = try await TestServer.whileLocked(schema: schema, table: FixtureNoteEntity.entityName) { _ in
            await #expect(throws: StorageError.self) { try await context.save(batch, mode: .upsert) }
        }
        let timeout = try #require(error)
        #expect(timeout.entityName == FixtureNoteEntity.entityName)
        #expect(timeout.description.contains("57014") && timeout.description.contains("statement timeout"), "\(timeout)")
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
            let waiting = try await TestServer.waitForBlockedBackend(lockHolder, schema: schema, table: FixtureNoteEntity.entityName)
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

    @Test func anEntityNameTheServerCannotHoldIsRefusedBeforeAnythingIsSent() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let error = try await #require(throws: StorageError.self) { try await context.save([ReservedNameEntity(id: 1)], mode: .upsert) }
        #expect(error.kind == .encodingFailed && error.entityName == "daokit_mine", "\(error)")
    }
}

private struct ReservedNameEntity: Storable {
    static var entityName: String { "daokit_mine" }
    var id: Int
}
