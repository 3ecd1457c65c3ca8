import DAOKit
import DAOKitFileStore
import DAOKitTestSupport
import Foundation
import Testing

/// The contexts that keep entity versions.
private let versionedContexts: [ContextFactory] = [
    .keyValueInMemory, .keyValueUserDefaults, .fileJSON, .filePropertyList, .sqliteFile,
]

/// Records the progress a migration reports, from any thread.
private final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var reported: [MigrationProgress] = []
    var all: [MigrationProgress] { lock.withLock { reported } }
    func record(_ progress: MigrationProgress) { lock.withLock { reported.append(progress) } }
}

@Suite("migrate() rewrites every older record at the current version, all or nothing")
struct MigrateTests {
    @Test(arguments: versionedContexts)
    func olderRecordsAreRewrittenWithProgress(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        try context.save((0..<2_500).map { TicketV1(id: "a\($0)", title: "T\($0)", note: "n\($0)", count: $0) })
        try context.save([TicketV2(id: "b", title: "B", note: "nb", count: 1.5, points: 9)])
        try context.save([TicketV3(id: "c", title: "C", remark: "nc", count: 2, points: 3)])
        let dao = BaseDao<TicketV3, TicketV3>(context: context)
        let log = ProgressLog()
        #expect(try dao.migrate(progress: log.record) == 2_501)
        #expect(
            log.all.map(\.done) == [0, 1_000, 2_000, 2_501] && log.all.allSatisfy { $0.total == 2_501 },
            "\(log.all)")
        let versioned = try #require(context as? any VersionedStorageContext)
        #expect(try versioned.fetchOlderRecords(TicketV3.self).values.isEmpty)
        #expect(try dao.read(id: "a7") == TicketV3(id: "a7", title: "T7", remark: "n7", count: 7, points: 7))
        #expect(try dao.read(id: "b") == TicketV3(id: "b", title: "B", remark: "nb", count: 1.5, points: 9))
        #expect(try dao.count() == 2_502)
        // Nothing is older any more: nothing to do, nothing reported.
        let again = ProgressLog()
        #expect(try dao.migrate(progress: again.record) == 0)
        #expect(again.all.isEmpty)
        // Version 2 code can no longer read what version 3 rewrote.
        #expect(throws: StorageError.self) { try context.fetch(TicketV2.self, id: "a7") }
    }

    @Test(arguments: versionedContexts)
    func aRecordThatDoesNotResolveFailsTheMigrationNamingItAndNothingIsWritten(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        try context.save((0..<5).map { TicketV1(id: "a\($0)", title: "T", note: "n", count: $0) })
        try context.save([TicketWithoutCount(id: "broken", title: "T", note: "n")])
        let dao = BaseDao<TicketV3, TicketV3>(context: context)
        let error = try #require(throws: StorageError.self) { try dao.migrate() }
        #expect(error.key == "broken", "\(error)")
        #expect(error.code == .decodingFailed)
        let versioned = try #require(context as? any VersionedStorageContext)
        let older = try versioned.fetchOlderRecords(TicketV3.self)
        #expect(older.values.count == 5)
        #expect(older.failures.map(\.storageKey) == ["broken"])
        // Version 1 code still reads every record it wrote: none was rewritten.
        #expect(try context.fetch(TicketV1.self, id: "a3") == TicketV1(id: "a3", title: "T", note: "n", count: 3))
    }

    @Test(arguments: versionedContexts)
    func recordsANewerVersionWroteAreLeftAlone(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        let newer = TicketV4(id: "n", title: "N", remark: "r", count: 1, points: 2, owner: "kim")
        try context.save([newer])
        try context.save([TicketV1(id: "o", title: "O", note: "n", count: 1)])
        #expect(try BaseDao<TicketV3, TicketV3>(context: context).migrate() == 1)
        #expect(try context.fetch(TicketV4.self, id: "n") == newer)
    }

    @Test(arguments: versionedContexts)
    func theAsyncFormMigratesToo(_ factory: ContextFactory) async throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([TicketV1(id: "o", title: "O", note: "n", count: 1)])
        let log = ProgressLog()
        let dao = BaseDao<TicketV3, TicketV3>(context: fresh.context)
        #expect(try await dao.migrate(progress: { log.record($0) }) == 1)
        #expect(log.all == [MigrationProgress(done: 0, total: 1), MigrationProgress(done: 1, total: 1)])
        #expect(try await dao.read(id: "o")?.points == 7)
    }

    @Test func theInMemoryContextHasNothingToMigrate() throws {
        let context = InMemoryStorageContext()
        let dao = BaseDao<TicketV3, TicketV3>(context: context)
        try dao.persist(TicketV3(id: "a", title: "T", remark: "r", count: 1, points: 2))
        #expect(try dao.migrate() == 0)
    }

    @Test func anInvalidSchemaFailsTheMigration() throws {
        let fresh = try ContextFactory.sqliteFile.make()
        defer { fresh.cleanUp() }
        let error = try #require(throws: StorageError.self) {
            try BaseDao<TicketWrongDefault, TicketWrongDefault>(context: fresh.context).migrate()
        }
        #expect(error.code == .invalidSchema)
    }
}
