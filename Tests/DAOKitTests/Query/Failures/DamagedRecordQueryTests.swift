import DAOKit
import DAOKitFileStore
import DAOKitTestSupport
import Foundation
import Testing

/// A record that cannot be read fails every query that needs it, pushed down or not: the query
/// throws ``StorageError`` naming the record (`.corruptRecord` for bytes that are not a record,
/// `.decodingFailed` for a record that does not decode as the entity), `count(where:)` too, and
/// `erase(where:)` deletes nothing. Without indexes every query is a scan and needs every record.
@Suite("Queries over damaged records")
struct DamagedRecordQueryTests {
    struct Entry: Codable, Identifiable, Equatable {
        var id: String
        var amount: Int32
    }

    struct LedgerEntry: Storable {
        static var entityName: String { "Ledger" }
        var id: String
        var amount: Int32
    }

    /// The same records with a wider field: what another version of the app may have written.
    struct WideLedgerEntry: Storable {
        static var entityName: String { "Ledger" }
        var id: String
        var amount: Int64
    }

    /// A store whose raw records a test can overwrite.
    struct DamageableStore: Sendable, CustomStringConvertible {
        let description: String
        /// A fresh context, a way to overwrite the raw record of a key with bytes, and the clean-up.
        let make:
            @Sendable () throws -> (
                context: any StorageContext, overwrite: (String, String) throws -> Void, cleanUp: () -> Void
            )

        static let keyValueInMemory = DamageableStore(description: "keyValue(InMemoryKeyValueStore)") {
            let store = InMemoryKeyValueStore()
            return (
                KeyValueStorageContext(store: store),
                { key, text in store.setString(text, forKey: "DAOKit/Ledger/\(key)") }, {}
            )
        }

        static let keyValueUserDefaults = DamageableStore(description: "keyValue(UserDefaults)") {
            let suite = TemporarySuite()
            let defaults = suite.defaults
            return (
                KeyValueStorageContext(store: defaults),
                { key, text in defaults.set(text, forKey: "DAOKit/Ledger/\(key)") },
                suite.remove
            )
        }

        /// The damage is done behind DAOKit's back, which the change log does not record and a
        /// warm query cache cannot see (README, "Queries and indexes"); so this store does not
        /// cache, and every query reads the records. Damage found while a cache loads is
        /// `FileQueryCacheTests`'.
        static let files = DamageableStore(description: "file(JSON)") {
            let directory = FileTestDirectory()
            let context = try FileStorageContext(directory: directory.url, queryCache: .disabled)
            return (
                context,
                { key, text in
                    let names = try FileManager.default.subpathsOfDirectory(atPath: directory.path)
                    let name = try #require(
                        names.first { $0.hasSuffix("/\(key).json") }, "no record file for \(key) in \(names)")
                    try Data(text.utf8).write(to: directory.url.appendingPathComponent(name))
                }, directory.remove
            )
        }

        static let all = [keyValueInMemory, keyValueUserDefaults, files]
    }

    static let entries = (0..<6).map { Entry(id: "e\($0)", amount: Int32($0 * 10)) }
    static let bigOnes = #Predicate<Entry> { $0.amount >= 30 }

    /// Every query call on `dao`, each expected to throw naming `key` with `kind`; then checks
    /// that nothing was erased and that the calls were pushed down (the context got a filter).
    func expectEveryQueryFails(
        _ dao: BaseDao<Entry, LedgerEntry>, recording: QueryRecordingContext, stored: Int,
        key: String, kind: StorageError.Kind, _ label: String
    ) throws {
        _ = recording.takeRequests()
        let calls: [(String, () throws -> Void)] = [
            ("read(where:)", { _ = try dao.read(where: Self.bigOnes) }),
            (
                "read(where:sortedBy:limit:)",
                { _ = try dao.read(where: Self.bigOnes, sortedBy: [SortDescriptor(\.amount)], limit: 1) }
            ),
            ("count(where:)", { _ = try dao.count(where: Self.bigOnes) }),
            ("erase(where:)", { try dao.erase(where: Self.bigOnes) }),
        ]
        for (name, call) in calls {
            let error = try #require(throws: StorageError.self, "\(label) \(name)") { try call() }
            #expect(error.kind == kind, "\(label) \(name): \(error)")
            #expect(error.entityName == "Ledger", "\(label) \(name): \(error)")
            #expect(error.key == key, "\(label) \(name): \(error)")
        }
        let requests = recording.takeRequests()
        #expect(
            requests.contains { if case .fetch(let query) = $0 { query.filter != nil } else { false } },
            "\(label): \(requests)")
        #expect(requests.contains { if case .count = $0 { true } else { false } }, "\(label): \(requests)")
        #expect(requests.contains { if case .delete = $0 { true } else { false } }, "\(label): \(requests)")
        #expect(try dao.context.count(LedgerEntry.self) == stored, "\(label): erase(where:) deleted something")
    }

    @Test(arguments: DamageableStore.all)
    func aCorruptRecordFailsEveryPushedQueryNamingIt(_ store: DamageableStore) throws {
        let (context, overwrite, cleanUp) = try store.make()
        defer { cleanUp() }
        let recording = QueryRecordingContext(context)
        let dao = BaseDao<Entry, LedgerEntry>(context: recording)
        try dao.persist(Self.entries)
        #expect(try dao.count(where: Self.bigOnes) == 3)  // proves `amount` while every record reads
        try overwrite("e1", "{\"id\": \"e1\", \"amou")
        try expectEveryQueryFails(
            dao, recording: recording, stored: Self.entries.count, key: "e1",
            kind: try #require(corruptKind(of: context, key: "e1")), "\(store)")
    }

    @Test(arguments: ContextFactory.evaluatingInSwift)
    func anUndecodableRecordFailsEveryPushedQueryNamingIt(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let recording = QueryRecordingContext(fresh.context)
        let dao = BaseDao<Entry, LedgerEntry>(context: recording)
        try dao.persist(Self.entries)
        #expect(try dao.count(where: Self.bigOnes) == 3)
        try fresh.context.save([WideLedgerEntry(id: "huge", amount: 5_000_000_000)])
        try expectEveryQueryFails(
            dao, recording: recording, stored: Self.entries.count + 1, key: "huge",
            kind: .decodingFailed, "\(factory)")
    }

    /// The kind of error reading the damaged record alone gives: the query must give the same.
    private func corruptKind(of context: any StorageContext, key: String) -> StorageError.Kind? {
        do {
            _ = try context.fetch(LedgerEntry.self, id: key)
            return nil
        } catch let error as StorageError {
            guard case .corruptRecord = error.kind else { return nil }
            return error.kind
        } catch {
            return nil
        }
    }
}
