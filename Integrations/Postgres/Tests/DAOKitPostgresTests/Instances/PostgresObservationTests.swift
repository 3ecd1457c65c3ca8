import DAOKit
import DAOKitPostgres
import DAOKitPostgresTestSupport
import DAOKitTesting
import PostgresNIO
import Testing

/// `BaseDao.observe` on a Postgres context sees other instances' commits, through LISTEN/NOTIFY.
@Suite("Postgres observation", .timeLimit(.minutes(2)))
struct PostgresObservationTests {
    @Test func anObserverSeesAnotherProcessesWrite() async throws {
        let schema = TestServer.freshSchema()
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        let notes = BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: context)
        var updates = notes.observe(id: "shared").makeAsyncIterator()
        #expect(try await updates.next() == .some(nil), "absent at first")
        let writer = try WriterProcess([schema, "persist", "shared", "from another process"])
        #expect(writer.finish().succeeded)
        #expect(try await updates.next() == .some(FixtureNoteEntity(id: "shared", body: "from another process")))
    }

    @Test func anObserverSeesAnotherContextsDeleteButNotAnotherSchemasWrite() async throws {
        let schema = TestServer.freshSchema()
        let observed = try TestServer.context(schema: schema)
        let other = try TestServer.context(schema: schema)
        let elsewhere = try TestServer.context()
        defer { [observed, other, elsewhere].forEach { $0.close() } }
        try await other.save([FixtureNoteEntity(id: "a", body: "x")], mode: .upsert)
        var counts = BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: observed).observeCount().makeAsyncIterator()
        #expect(try await counts.next() == 1)
        // A write in another schema is not this store's: no delivery; then a delete here is.
        try await elsewhere.save([FixtureNoteEntity(id: "b", body: "y")], mode: .upsert)
        try await other.delete(FixtureNoteEntity.self, ids: ["a"])
        #expect(try await counts.next() == 0)
    }

    @Test func anObservationEndsWithTheServersReportWhenItsTableIsDropped() async throws {
        let schema = TestServer.freshSchema()
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        try await context.save([FixtureNoteEntity(id: "a", body: "x")], mode: .upsert)
        var counts = BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: context).observeCount().makeAsyncIterator()
        #expect(try await counts.next() == 1)
        try await TestServer.withConnection { connection in
            try await connection.query(
                PostgresQuery(unsafeSQL: "DROP TABLE \"\(schema)\".\"\(FixtureNoteEntity.entityName)\""),
                logger: TestServer.logger)
            // As another instance's write would announce it.
            let payload = #"{"schema":"\#(schema)","origin":"elsewhere","entity":"\#(FixtureNoteEntity.entityName)"}"#
            try await connection.query("SELECT pg_notify('daokit_changes', \(payload))", logger: TestServer.logger)
        }
        let error = try await #require(throws: StorageError.self) { _ = try await counts.next() }
        #expect(error.description.contains("42P01"), "\(error)")
    }

    @Test func closingTheContextEndsItsObservationsSayingSo() async throws {
        let context = try TestServer.context()
        try await context.save([FixtureNoteEntity(id: "a", body: "x")], mode: .upsert)
        var counts = BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: context).observeCount().makeAsyncIterator()
        #expect(try await counts.next() == 1)
        context.close()
        let error = try await #require(throws: StorageError.self) { _ = try await counts.next() }
        #expect(error.description.contains("the context was closed"), "\(error)")
    }
}
