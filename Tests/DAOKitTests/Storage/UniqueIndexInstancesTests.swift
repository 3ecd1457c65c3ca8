import DAOKitFileStore
import DAOKitInternals
import DAOKitSQLite
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit

/// Unique indexes across two context instances on one store (what two processes are to the
/// store: two SQLite connections, two holders of the file store's lock): creates of one value
/// racing from both leave exactly one record, round after round, and SQLite's own rules hold.
@Suite("Unique indexes across instances: two contexts on one store racing, exactly one wins")
struct UniqueIndexInstancesTests {
    struct Account: Storable, Equatable {
        static let indexes = [StorageIndex("email", unique: true)]
        var id: String
        var email: String
    }

    /// Two contexts on one store, and what removes it.
    struct Pair {
        let first: any StorageContext
        let second: any StorageContext
        let cleanUp: () -> Void
    }

    static func sqlitePair() throws -> Pair {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("daokit-unique-\(UUID().uuidString)")
        let file = folder.appendingPathComponent("store.sqlite")
        return Pair(
            first: try SQLiteStorageContext(file: file), second: try SQLiteStorageContext(file: file),
            cleanUp: { try? FileManager.default.removeItem(at: folder) })
    }

    static func filePair(_ format: FileStorageContext.RecordFormat) throws -> Pair {
        let directory = FileTestDirectory()
        return Pair(
            first: try FileStorageContext(directory: directory.url, format: format),
            second: try FileStorageContext(directory: directory.url, format: format), cleanUp: directory.remove)
    }

    static let pairs: [(String, @Sendable () throws -> Pair)] = [
        ("sqlite", { try sqlitePair() }), ("files(JSON)", { try filePair(.json) }),
        ("files(propertyList)", { try filePair(.propertyList) }),
    ]

    @Test(arguments: pairs.map(\.0))
    func racingCreatesOfOneValueLeaveExactlyOnePerRound(_ name: String) throws {
        let pair = try Self.pairs.first { $0.0 == name }!.1()
        defer { pair.cleanUp() }
        let rounds = 20
        for round in 0..<rounds {
            let outcomes = Locked<[Result<Void, any Error>]>([])
            let writers = [(pair.first, "a"), (pair.second, "b"), (pair.first, "c"), (pair.second, "d")]
            let threads = writers.map { context, writer in
                Thread {
                    let outcome = Result {
                        try context.save(
                            [Account(id: "\(round)\(writer)", email: "user\(round)@example.com")], mode: .insert)
                    }
                    outcomes.withLock { $0.append(outcome) }
                }
            }
            for thread in threads { thread.start() }
            let deadline = Date().addingTimeInterval(120)  // only guards against a hang
            while outcomes.withLock({ $0.count }) < writers.count && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.001)
            }
            let results = outcomes.withLock { $0 }
            #expect(results.count == writers.count)
            #expect(results.filter { (try? $0.get()) != nil }.count == 1, "round \(round)")
            for case .failure(let error) in results {
                #expect((error as? StorageError)?.code == .uniqueViolation, "\(error)")
            }
        }
        let stored = try pair.second.fetchAll(Account.self)
        #expect(stored.count == rounds)
        #expect(Set(stored.map(\.email)).count == rounds)
        #expect(try pair.first.count(Account.self) == rounds)
    }

    @Test(arguments: pairs.map(\.0))
    func aValueOneInstanceStoredIsRefusedToTheOther(_ name: String) throws {
        let pair = try Self.pairs.first { $0.0 == name }!.1()
        defer { pair.cleanUp() }
        try pair.first.save([Account(id: "a", email: "x")])
        let error = try #require(throws: StorageError.self) { try pair.second.save([Account(id: "b", email: "x")]) }
        #expect(error.key == "b")
        #expect(error.uniqueIndexViolation?.existingKey == "a")
        // Freed by one, taken by the other.
        try pair.first.delete(Account.self, ids: ["a"])
        try pair.second.save([Account(id: "b", email: "x")])
        #expect(try pair.first.fetchAll(Account.self) == [Account(id: "b", email: "x")])
    }

    /// A file context whose query cache keeps the type checks against it, brought up to date with
    /// what the other instance wrote since (from the store's change log).
    @Test(arguments: ["files(JSON)", "files(propertyList)"])
    func aFileContextsQueryCacheKnowsTheOtherInstancesValues(_ name: String) throws {
        let pair = try Self.pairs.first { $0.0 == name }!.1()
        defer { pair.cleanUp() }
        let first = pair.first
        try first.save([Account(id: "a", email: "x")])
        let query = StorageQuery(filter: .compare("email", .equal, .string("x")))
        #expect(try first.fetch(Account.self, matching: query).map(\.id) == ["a"])  // the cache keeps the type now
        try pair.second.save([Account(id: "b", email: "y")])
        let theirs = try #require(throws: StorageError.self) { try first.save([Account(id: "c", email: "y")]) }
        #expect(theirs.uniqueIndexViolation?.existingKey == "b")
        let own = try #require(throws: StorageError.self) { try first.save([Account(id: "d", email: "x")]) }
        #expect(own.uniqueIndexViolation?.existingKey == "a")
        try pair.second.delete(Account.self, ids: ["b"])
        try first.save([Account(id: "c", email: "y")])
        try first.save([Account(id: "a", email: "z"), Account(id: "c", email: "x")])
        #expect(try pair.second.fetchAll(Account.self).map { "\($0.id)=\($0.email)" }.sorted() == ["a=z", "c=x"])
        #expect(try first.fetch(Account.self, matching: query).map(\.id) == ["c"])
    }

    // MARK: - Processes

    /// The record the `DAOKitCrashWriter unique` child writes: the same entity name and fields.
    struct UniqueAccount: Storable {
        static var entityName: String { "UniqueAccount" }
        static let indexes = [StorageIndex("email", unique: true)]
        var id: String
        var email: String
    }

    /// Two processes insert, round after round, an account each with the same e-mail: each round
    /// leaves exactly one, and each process hears `uniqueViolation` (not another error) when it
    /// loses; the rounds are run at once, so that the writes interleave.
    @Test(arguments: ["files", "sqlite"])
    func twoProcessesNeverBothStoreAValue(_ kind: String) throws {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        let path = kind == "sqlite" ? directory.url.appendingPathComponent("store.sqlite") : directory.url
        if kind == "sqlite" {
            try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        }
        // The store exists before the children open it, as an app's store does.
        let context: any StorageContext =
            kind == "sqlite" ? try SQLiteStorageContext(file: path) : try FileStorageContext(directory: path)
        let rounds = 60
        let children = try ["a", "b"].map { prefix in
            try FileChildProcess(arguments: ["unique", kind, path.path, prefix, String(rounds)])
        }
        for child in children {
            let ended = child.wait()
            #expect(ended.status == 0, "\(ended.errors)")
        }
        let stored = try context.fetchAll(UniqueAccount.self)
        #expect(stored.count == rounds)
        #expect(Set(stored.map(\.email)) == Set((0..<rounds).map { "user-\($0)" }))
    }

    // MARK: - SQLite

    struct Nested: Storable {
        static let indexes = [StorageIndex("owner.email", unique: true)]
        struct Owner: Codable { var email: String }
        var id: String
        var owner: Owner
    }

    @Test func sqliteRefusesAUniqueIndexItCannotKeep() throws {
        let pair = try Self.sqlitePair()
        defer { pair.cleanUp() }
        let error = try #require(throws: StorageError.self) {
            try pair.first.save([Nested(id: "a", owner: .init(email: "x"))])
        }
        #expect(error.code == .unsupported)
        #expect(error.kind.detail?.contains("owner.email") == true)
        #expect(try pair.first.count(Nested.self) == 0)
    }

    @Test func sqliteAnswersAnEqualityThroughTheUniqueIndex() throws {
        let pair = try Self.sqlitePair()
        defer { pair.cleanUp() }
        let context = try #require(pair.first as? SQLiteStorageContext)
        try context.save([Account(id: "a", email: "x"), Account(id: "b", email: "y")])
        let access = try context.explain(
            StorageQuery(filter: .compare("email", .equal, .string("x"))), counting: false, for: Account.self)
        #expect(access.index == StorageIndex("email", unique: true))
        #expect(!access.scansEveryRecord)
    }

    /// A replace by key must not remove the row holding the values, as SQLite's `INSERT OR
    /// REPLACE` would: it fails, and both rows stay.
    @Test func sqliteNeverReplacesTheRowHoldingTheValues() throws {
        let pair = try Self.sqlitePair()
        defer { pair.cleanUp() }
        try pair.first.save([Account(id: "a", email: "x"), Account(id: "b", email: "y")])
        #expect(throws: StorageError.self) { try pair.first.save([Account(id: "b", email: "x")]) }
        #expect(
            try pair.first.fetchAll(Account.self).sorted { $0.id < $1.id } == [
                Account(id: "a", email: "x"), Account(id: "b", email: "y"),
            ])
    }
}
