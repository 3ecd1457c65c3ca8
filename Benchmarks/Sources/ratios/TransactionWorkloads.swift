import BenchmarkModels
import DAOKit
import DAOKitFileStore
import DAOKitSQLite
import Foundation
import GRDB

/// The dialog of the `transactions` section: the record a transaction writes beside its messages.
struct TransactionDialogEntity: Storable, Equatable {
    static var entityName: String { "Dialog" }
    var id: Int
    var title: String
    var lastMessageID: Int
}

/// The same dialog as GRDB's own Codable record.
struct GRDBDialog: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "dialog"
    var id: Int
    var title: String
    var lastMessageID: Int
}

/// The contexts the `transactions` section compares a transaction with a batch on.
enum TransactionContextKind: String, CaseIterable {
    case memory, keyValue, files, sqlite
}

/// One context where a transaction writes one dialog and 20 messages and a batch writes 21
/// messages: the same number of records, the same kind of write (an upsert of records already
/// stored). Consecutive writes alternate between two versions of every record, so each write
/// changes every record: SQLite skips writing a row rewritten with the same bytes, and a commit
/// that changed nothing is not synced, which would leave the side that happens to write
/// identical bytes timing no `fsync` at all.
final class TransactionFixture {
    static let messagesPerTransaction = 20
    let kind: TransactionContextKind
    let directory: URL
    let context: any TransactionalStorageContext
    /// The two versions of the messages, which differ in every record (`isRead`).
    let versions: [[Message]]
    let dialog = TransactionDialogEntity(id: 1, title: "general", lastMessageID: 0)
    /// GRDB's database beside the SQLite context's, same durability (WAL, `synchronous = FULL`).
    let queue: DatabaseQueue?
    let recordVersions: [[GRDBMessage]]
    /// Which version the next write stores, per side.
    private var nextVersion = (transaction: 0, batch: 0, grdb: 0)

    init(kind: TransactionContextKind) throws {
        self.kind = kind
        let messages = SampleData.messages(count: Self.messagesPerTransaction + 1)
        let flipped = messages.map { message in
            var message = message
            message.isRead.toggle()
            return message
        }
        versions = [messages, flipped]
        recordVersions = versions.map { $0.map(GRDBMessage.init) }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daokit-transaction-ratios-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch kind {
        case .memory:
            context = InMemoryStorageContext()
            queue = nil
        case .keyValue:
            context = KeyValueStorageContext(store: InMemoryKeyValueStore())
            queue = nil
        case .files:
            context = try FileStorageContext(directory: directory.appendingPathComponent("store"))
            queue = nil
        case .sqlite:
            context = try SQLiteStorageContext(file: directory.appendingPathComponent("daokit.sqlite"))
            var configuration = Configuration()
            configuration.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = WAL")
                try db.execute(sql: "PRAGMA synchronous = FULL")
            }
            let queue = try DatabaseQueue(
                path: directory.appendingPathComponent("grdb.sqlite").path, configuration: configuration)
            try queue.write { db in
                try GRDBMessage.createTable(db)
                try db.create(table: "dialog") { table in
                    table.primaryKey("id", .integer)
                    table.column("title", .text).notNull()
                    table.column("lastMessageID", .integer).notNull()
                }
            }
            self.queue = queue
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// One dialog and 20 messages in one transaction.
    func runTransaction() throws -> Int {
        let version = nextVersion.transaction
        nextVersion.transaction = 1 - version
        return try transaction(on: context, version: version)
    }

    private func transaction<C: TransactionalStorageContext>(on context: C, version: Int) throws -> Int {
        let messages = Array(versions[version].prefix(Self.messagesPerTransaction))
        // The dialog changes with the version too.
        let dialog = TransactionDialogEntity(
            id: self.dialog.id, title: self.dialog.title, lastMessageID: version)
        return try context.transaction { tx in
            try BaseDao<Message, MessageEntity>(context: tx).persist(messages)
            try BaseDao<TransactionDialogEntity, TransactionDialogEntity>(context: tx).persist(dialog)
            return messages.count + 1
        }
    }

    /// 21 messages in one batch.
    func runBatch() throws -> Int {
        let version = nextVersion.batch
        nextVersion.batch = 1 - version
        try BaseDao<Message, MessageEntity>(context: context).persist(versions[version])
        return versions[version].count
    }

    /// One dialog and 20 messages in GRDB's `write { }`.
    func runGRDB() throws -> Int {
        guard let queue else { return 0 }
        let version = nextVersion.grdb
        nextVersion.grdb = 1 - version
        let messages = recordVersions[version].prefix(Self.messagesPerTransaction)
        let dialog = GRDBDialog(id: self.dialog.id, title: self.dialog.title, lastMessageID: version)
        try queue.write { db in
            for message in messages { try message.save(db) }
            try dialog.save(db)
        }
        return messages.count + 1
    }

    /// Throws unless a transaction, a batch and GRDB's write store what they were given, and
    /// consecutive writes store the other version.
    func verify() throws {
        _ = try runTransaction()  // version 0
        _ = try runTransaction()  // version 1
        _ = try runBatch()  // version 0
        let stored = try BaseDao<Message, MessageEntity>(context: context).read().sorted { $0.id < $1.id }
        let dialogs = try context.fetchAll(TransactionDialogEntity.self)
        let expectedDialog = TransactionDialogEntity(id: dialog.id, title: dialog.title, lastMessageID: 1)
        guard stored == versions[0], versions[0] != versions[1], dialogs == [expectedDialog] else {
            throw SectionFailure(description: "transactions section: \(kind.rawValue) stored something else")
        }
        if let queue {
            _ = try runGRDB()  // version 0
            _ = try runGRDB()  // version 1
            let (messages, dialog) = try queue.read { db in
                (try GRDBMessage.fetchAll(db).map(\.message), try GRDBDialog.fetchOne(db, key: 1))
            }
            let expected = Array(versions[1].prefix(Self.messagesPerTransaction))
            guard messages.sorted(by: { $0.id < $1.id }) == expected, dialog?.lastMessageID == 1 else {
                throw SectionFailure(description: "transactions section: GRDB stored something else")
            }
        }
    }
}
