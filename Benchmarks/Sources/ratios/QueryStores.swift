import BenchmarkModels
import DAOKit
import DAOKitFileStore
import Foundation
import GRDB

/// Every engine the query section measures, each holding the same `size` messages in 100 dialogs:
/// the three shipped DAOKit contexts with and without indexes, and GRDB in memory and on disk;
/// and the targets measured against DAOKit itself (``QueryTarget``).
///
/// The memory and key-value contexts and GRDB's in-memory database are filled in this process;
/// the file store and GRDB's database file come from ``QueryStoreCache``.
final class QueryStores {
    /// Bump when the sample data or the stores' layout changes, so that cached stores are rebuilt.
    static let dataVersion = 2
    /// Persisted per call when filling a store: bounds the memory a batch holds (the file context's
    /// journal keeps each replaced record's bytes).
    static let batchSize = 10_000

    let size: Int
    let messages: [DialogMessage]
    /// In report order: memory, memory.indexed, keyValue, keyValue.indexed, files, files.indexed,
    /// grdb.memory, grdb.disk.
    let engines: [QueryEngine]
    /// The targets measured against DAOKit itself: the file context's cold query, the key-value
    /// context's scanned query, a query that cannot be translated on the memory and file contexts,
    /// and a persist with indexes.
    let targets: [QueryTarget]

    init(size: Int, cache: QueryStoreCache) throws {
        self.size = size
        let messages = SampleData.dialogMessages(count: size)
        self.messages = messages

        let memory = InMemoryStorageContext()
        try Self.fill(memory, with: messages)
        let keyValue = KeyValueStorageContext(store: InMemoryKeyValueStore())
        try Self.fill(keyValue, with: messages)
        let filesLocation = try cache.store(named: "files-v\(Self.dataVersion)-\(size)") { scratch in
            try Self.fill(try FileStorageContext(directory: scratch), with: messages)
        }
        let files = try FileStorageContext(directory: filesLocation)

        let grdbMemory = try DatabaseQueue()
        try Self.fill(grdbMemory, with: messages)
        let grdbLocation = try cache.store(named: "grdb-v\(Self.dataVersion)-\(size).sqlite") { scratch in
            let database = try DatabaseQueue(path: scratch.path)
            try Self.fill(database, with: messages)
            try database.close()
        }
        let grdbDisk = try DatabaseQueue(path: grdbLocation.path)

        engines = [
            .dao("memory", memory, indexing: Unindexed.self),
            .dao("memory.indexed", memory, indexing: DialogIndexed.self),
            .dao("keyValue", keyValue, indexing: Unindexed.self),
            .dao("keyValue.indexed", keyValue, indexing: DialogIndexed.self),
            .dao("files", files, indexing: Unindexed.self),
            .dao("files.indexed", files, indexing: DialogIndexed.self),
            .grdb("grdb.memory", grdbMemory),
            .grdb("grdb.disk", grdbDisk),
        ]
        targets = [
            .coldFileQuery(at: filesLocation, messages: messages),
            .scannedKeyValueQuery(on: keyValue, messages: messages),
            .untranslatedQuery("memory", on: memory, messages: messages),
            .untranslatedQuery("files", on: files, messages: messages),
            try .indexedPersist(messages: messages),
        ]
    }

    /// Stores `messages` as both entity types, indexed and not.
    static func fill(_ context: any StorageContext, with messages: [DialogMessage]) throws {
        let plain = BaseDao<DialogMessage, DialogMessageEntity<Unindexed>>(context: context)
        let indexed = BaseDao<DialogMessage, DialogMessageEntity<DialogIndexed>>(context: context)
        for start in stride(from: 0, to: messages.count, by: batchSize) {
            let batch = Array(messages[start..<min(start + batchSize, messages.count)])
            try plain.persist(batch)
            try indexed.persist(batch)
        }
    }

    private static func fill(_ database: DatabaseQueue, with messages: [DialogMessage]) throws {
        try database.write { db in
            try DialogMessage.createTable(in: db)
            for message in messages { try message.insert(db) }
        }
    }
}
