import DAOKit
import DAOKitTesting
import Foundation
import PostgresNIO
import Testing

@testable import DAOKitPostgres

/// Releases of one stored ticket, with a unique e-mail: release 2 adds `points` and stops reading
/// `body`, which release 1 still reads (release 2 keeps it); release 3 renames `title`.
private struct TicketV1: Storable, Equatable {
    static let entityName = "Ticket"
    static let indexes = [StorageIndex("email", unique: true)]
    var id: String
    var title: String
    var email: String
    var body: String
}

private struct TicketV2: Storable, Equatable {
    static let entityName = "Ticket"
    static let indexes = [StorageIndex("email", unique: true)]
    static let schema = EntitySchema(
        version: 2, readableFrom: 1, steps: [2: [.added("points", default: 7), .removed("body")]])
    var id: String
    var title: String
    var email: String
    var points: Int
}

private struct TicketV3: Storable, Equatable {
    static let entityName = "Ticket"
    static let indexes = [StorageIndex("email", unique: true)]
    static let schema = EntitySchema(
        version: 3,
        steps: [2: [.added("points", default: 7), .removed("body")], 3: [.renamed("title", to: "name")]])
    var id: String
    var name: String
    var email: String
    var points: Int
}

/// Entity versions on PostgreSQL: the contract's checks (`VersionedStorageContextContract`) and the
/// query differential over records of several versions (`VersionedRecordDifferential`), then what
/// they leave to each context: where a row keeps its version, a table of an earlier release, a
/// query that learns of an older row another instance wrote, and the batch path of a unique index.
@Suite("Postgres rows carry their entity version")
struct PostgresEntityVersionTests {
    @Test(arguments: VersionedStorageContextContract.checks)
    func aSchemaOnTheServerKeepsTheContract(_ check: ContractCheck) throws {
        let context = try TestServer.context()
        defer { context.close() }
        try check.run(makeContext: { context })
    }

    @Test func queriesOverRecordsOfSeveralVersionsAgreeWithTheFullScan() async throws {
        let mismatches = try await Task.detached {
            var made: [PostgresStorageContext] = []
            defer { made.forEach { $0.close() } }
            return try VersionedRecordDifferential.mismatches {
                let context = try TestServer.context()
                made.append(context)
                return context
            }
        }.value
        #expect(mismatches.isEmpty, "\(mismatches.joined(separator: "\n"))")
    }

    @Test func everyRowCarriesItsVersion() async throws {
        let schema = TestServer.freshSchema()
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        try await context.save([TicketV1(id: "one", title: "T", email: "1@x", body: "b")])
        try await context.save([TicketV2(id: "two", title: "T", email: "2@x", points: 1)])
        try await context.save([TicketV3(id: "three", name: "T", email: "3@x", points: 1)])
        let stamps = try await Self.stamps(in: schema)
        #expect(stamps["one"].map { [$0.0, $0.1] } == [1, nil])
        #expect(stamps["two"].map { [$0.0, $0.1] } == [2, 1], "version 2, readable from 1")
        #expect(stamps["three"].map { [$0.0, $0.1] } == [3, nil])
    }

    @Test func aTableOfAnEarlierReleaseGainsTheColumnsAndItsRowsAreVersionOne() async throws {
        let schema = TestServer.freshSchema()
        let earlier = try TestServer.context(schema: schema)
        try await earlier.save([TicketV1(id: "a", title: "Old", email: "a@x", body: "kept")])
        earlier.close()
        // The table as an earlier release made it: without the version columns.
        _ = try await TestServer.withConnection { connection in
            try await connection.query(
                PostgresQuery(
                    unsafeSQL:
                        "ALTER TABLE \"\(schema)\".\"Ticket\" DROP COLUMN daokit_version, DROP COLUMN daokit_readable_from"
                ), logger: TestServer.logger
            ).collect().count
        }
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        #expect(
            try await context.fetch(TicketV3.self, id: "a") == TicketV3(id: "a", name: "Old", email: "a@x", points: 7))
        try await context.save([TicketV2(id: "a", title: "New", email: "a@x", points: 2)])
        #expect(try await Self.stamps(in: schema)["a"].map { [$0.0, $0.1] } == [2, 1])
        #expect(
            try await context.fetch(TicketV1.self, id: "a")
                == TicketV1(id: "a", title: "New", email: "a@x", body: "kept"))
        // The earlier release, which names only the key and the record, can no longer write: it
        // would leave version 2 beside a record it wrote.
        await #expect(throws: PSQLError.self) {
            try await TestServer.withConnection { connection in
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "INSERT INTO \"\(schema)\".\"Ticket\" (daokit_key, record) VALUES ('b', '{}')"),
                    logger: TestServer.logger
                ).collect().count
            }
        }
        #expect(try await context.fetchAll(TicketV2.self).map(\.id) == ["a"])
    }

    @Test func aChangedFieldIsLeftToSwiftWhileOlderRowsAreStoredAndTranslatedOnceNoneAre() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        try await context.save([TicketV1(id: "a", title: "Old", email: "a@x", body: "")])
        try await context.save([TicketV2(id: "b", title: "New", email: "b@x", points: 3)])
        let seven = StorageFilter.compare("points", .equal, .int(7))
        let points = StorageQuery(filter: seven)
        let title = StorageQuery(filter: .compare("title", .equal, .string("Old")))
        #expect(try await !context.translation(of: points, for: TicketV2.self).isExact)
        #expect(try await context.translation(of: title, for: TicketV2.self).isExact, "an unchanged field")
        #expect(try await context.fetch(TicketV2.self, matching: points).map(\.id) == ["a"])
        #expect(try await context.count(TicketV2.self, matching: seven) == 1)
        #expect(try await BaseDao<TicketV2, TicketV2>(context: context).migrate() == 1)
        #expect(try await context.translation(of: points, for: TicketV2.self).isExact)
        #expect(try await context.fetch(TicketV2.self, matching: points).map(\.id) == ["a"])
        // Version 3 renamed a field since: version 2's rows hold it under its old name.
        let name = StorageQuery(filter: .compare("name", .equal, .string("Old")))
        #expect(try await !context.translation(of: name, for: TicketV3.self).isExact)
        #expect(try await context.fetch(TicketV3.self, matching: name).map(\.id) == ["a"])
    }

    /// An instance that last saw no older row learns of one another instance (an older release,
    /// still running) wrote since, in the snapshot of its next query, even when that row holds no
    /// field of a kind not seen before: every answer is the full scan's.
    @Test func anOlderRowAnotherInstanceWroteIsSeenByTheNextQuery() async throws {
        let schema = TestServer.freshSchema()
        let current = try TestServer.context(schema: schema)
        let older = try TestServer.context(schema: schema)
        defer {
            current.close()
            older.close()
        }
        try await older.save([TicketV1(id: "x", title: "Old", email: "x@x", body: "b")])
        let tickets = BaseDao<TicketV2, TicketV2>(context: current)
        #expect(try await tickets.migrate() == 1)
        try await tickets.persist(TicketV2(id: "b", title: "New", email: "b@x", points: 3))
        let sevens = #Predicate<TicketV2> { $0.points == 7 }
        #expect(try await tickets.count(where: sevens) == 1)
        #expect(try await tickets.read(where: sevens).map(\.id) == ["x"])
        // Every field these rows hold has held its kind before: only their version is news.
        try await older.save([TicketV1(id: "a", title: "Old", email: "a@x", body: "b")])
        #expect(try await tickets.count(where: sevens) == 2)
        try await older.save([TicketV1(id: "c", title: "Old", email: "c@x", body: "b")])
        #expect(try await tickets.read(where: sevens).map(\.id).sorted() == ["a", "c", "x"])
        _ = try await tickets.migrate()
        #expect(try await tickets.count(where: sevens) == 3)
        try await older.save([TicketV1(id: "d", title: "Old", email: "d@x", body: "b")])
        try await tickets.erase(where: sevens)
        #expect(try await tickets.read().map(\.id) == ["b"])
    }

    /// A batch over a unique index deletes its stored rows before it writes them: it keeps the
    /// removed fields all the same, and leaves a row a newer version wrote.
    @Test func aBatchOverAUniqueIndexKeepsRemovedFieldsAndNeverReplacesANewerRow() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        try await context.save([
            TicketV1(id: "a", title: "A", email: "a@x", body: "A's body"),
            TicketV1(id: "b", title: "B", email: "b@x", body: "B's body"),
        ])
        // The two swap their e-mails: only a batch that deletes first may.
        try await context.save([
            TicketV2(id: "a", title: "A2", email: "b@x", points: 1),
            TicketV2(id: "b", title: "B2", email: "a@x", points: 2),
        ])
        #expect(
            try await context.fetchAll(TicketV1.self).sorted { $0.id < $1.id } == [
                TicketV1(id: "a", title: "A2", email: "b@x", body: "A's body"),
                TicketV1(id: "b", title: "B2", email: "a@x", body: "B's body"),
            ])
        let newer = TicketV3(id: "c", name: "C", email: "c@x", points: 3)
        try await context.save([newer])
        let error = try await #require(throws: StorageError.self) {
            try await context.save([
                TicketV2(id: "d", title: "D", email: "d@x", points: 0),
                TicketV2(id: "c", title: "blind", email: "e@x", points: 0),
            ])
        }
        #expect(error.code == .newerVersion && error.key == "c", "\(error)")
        #expect(try await context.fetch(TicketV3.self, id: "c") == newer)
        #expect(try await context.fetch(TicketV2.self, id: "d") == nil)
    }

    /// `migrate()` in one transaction: a failure to commit leaves every row as it was.
    @Test func migrateInATransactionOfTheCallerIsUndoneWithIt() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        try await context.save([TicketV1(id: "a", title: "A", email: "a@x", body: "")])
        struct Abandon: Error {}
        await #expect(throws: Abandon.self) {
            try await Task.detached {
                try context.transaction { tx in
                    #expect(try BaseDao<TicketV3, TicketV3>(context: tx).migrate() == 1)
                    #expect(try tx.fetchOlderRecords(TicketV3.self).values.isEmpty)
                    throw Abandon()
                }
            }.value
        }
        #expect(try await context.fetchOlderRecords(TicketV3.self).values.map(\.id) == ["a"])
    }

    /// Each row's `daokit_version` and `daokit_readable_from`, by key.
    private static func stamps(in schema: String) async throws -> [String: (Int?, Int?)] {
        try await TestServer.withConnection { connection in
            var stamps: [String: (Int?, Int?)] = [:]
            let rows = try await connection.query(
                PostgresQuery(
                    unsafeSQL: "SELECT daokit_key, daokit_version, daokit_readable_from FROM \"\(schema)\".\"Ticket\""),
                logger: TestServer.logger)
            for try await (key, version, readableFrom) in rows.decode((String, Int?, Int?).self) {
                stamps[key] = (version, readableFrom)
            }
            return stamps
        }
    }
}
