import BenchmarkModels
import DAOKit
@_spi(DAOKitBenchmarks) import DAOKitSQLite
import Foundation
import GRDB

/// How the `sqlite` section stores a ``Message`` through DAOKit: the domain's fields, with the
/// index the screen query needs. GRDB's table gets the same index.
struct SQLiteMessageEntity: Storable {
    static var entityName: String { "Message" }
    static var indexes: [StorageIndex] { [StorageIndex("senderId", "isRead", "date")] }
    var id: Int
    var date: Date
    var text: String
    var senderId: Int
    var receiverId: Int
    var type: MessageType
    var isIncoming: Bool
    var isRead: Bool
    var attachment: URL?
    var note: String?
}

/// The same message as GRDB's own Codable record, the way its documentation writes one.
struct GRDBMessage: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "message"
    var id: Int
    var date: Date
    var text: String
    var senderId: Int
    var receiverId: Int
    var type: MessageType
    var isIncoming: Bool
    var isRead: Bool
    var attachment: URL?
    var note: String?

    init(_ message: Message) {
        (id, date, text, senderId, receiverId, type, isIncoming, isRead, attachment, note) =
            (
                message.id, message.date, message.text, message.senderId, message.receiverId, message.type,
                message.isIncoming, message.isRead, message.attachment, message.note
            )
    }

    var message: Message {
        Message(
            id: id, date: date, text: text, senderId: senderId, receiverId: receiverId, type: type,
            isIncoming: isIncoming, isRead: isRead, attachment: attachment, note: note)
    }
}

extension GRDBMessage {
    /// GRDB's `message` table, one column per field with GRDB's own types: the schema every
    /// section that compares with GRDB uses, so they all measure the same table.
    static func createTable(_ db: Database) throws {
        try db.create(table: "message") { table in
            table.primaryKey("id", .integer)
            table.column("date", .datetime).notNull()
            table.column("text", .text).notNull()
            table.column("senderId", .integer).notNull()
            table.column("receiverId", .integer).notNull()
            table.column("type", .text).notNull()
            table.column("isIncoming", .boolean).notNull()
            table.column("isRead", .boolean).notNull()
            table.column("attachment", .text)
            table.column("note", .text)
        }
    }
}

extension MessageType: DatabaseValueConvertible {}

/// The screen query: user 7's unread messages, newest first, 20 of them — as a `Predicate` and
/// sort for `BaseDao`, and in GRDB's query interface.
enum SQLiteScreenQuery {
    static let limit = 20
    static var predicate: Predicate<Message> { #Predicate<Message> { $0.senderId == 7 && $0.isRead == false } }
    static var sortOrder: [SortDescriptor<Message>] { [SortDescriptor(\Message.date, order: .reverse)] }
    static var grdbFilter: QueryInterfaceRequest<GRDBMessage> {
        GRDBMessage.filter(Column("senderId") == 7 && Column("isRead") == false)
    }
}

/// The operations the `sqlite` section times, each on both sides.
enum SQLiteOperation: String, CaseIterable {
    case batchInsert, persistOne, readById, readAll, screen, count
}

/// One size of the comparison: a DAOKit database and a GRDB database of `count` messages each, in
/// one temporary directory, with the same index, both in WAL mode with `synchronous = FULL`.
final class SQLiteFixture {
    let count: Int
    let messages: [Message]
    let records: [GRDBMessage]
    let directory: URL
    let dao: BaseDao<Message, SQLiteMessageEntity>
    let queue: DatabaseQueue
    /// Rotates through the ids, so that single-record operations do not hit one cached page.
    private var cursor = 0

    /// - Parameter writingChecksums: `false` stores DAOKit's rows without their checksum, as the
    ///   `checksum` section's unchecked side does (for `StoreProfile`'s `.unchecked` sides only).
    init(count: Int, writingChecksums: Bool = true) throws {
        self.count = count
        messages = SampleData.messages(count: count)
        records = messages.map(GRDBMessage.init)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daokit-sqlite-ratios-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        dao = BaseDao(
            context: try SQLiteStorageContext(
                file: directory.appendingPathComponent("daokit.sqlite"), writingChecksums: writingChecksums))
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA synchronous = FULL")
        }
        queue = try DatabaseQueue(
            path: directory.appendingPathComponent("grdb.sqlite").path, configuration: configuration)
        try queue.write { db in
            try GRDBMessage.createTable(db)
            try db.create(index: "message_sender_read_date", on: "message", columns: ["senderId", "isRead", "date"])
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func fill() throws {
        try dao.persist(messages)
        try queue.write { db in for record in records { try record.insert(db) } }
    }

    private func nextIndex() -> Int {
        cursor = (cursor &+ 7_919) % count
        return cursor
    }

    /// One operation through DAOKit; returns something derived from the result, for the sink.
    func runDAO(_ operation: SQLiteOperation) throws -> Int {
        switch operation {
        case .batchInsert:
            try dao.erase()
            try dao.persist(messages)
            return count
        case .persistOne:
            try dao.persist(messages[nextIndex()])
            return 1
        case .readById:
            return try dao.read(id: messages[nextIndex()].id)?.senderId ?? -1
        case .readAll:
            return try dao.read().count
        case .screen:
            return try dao.read(
                where: SQLiteScreenQuery.predicate, sortedBy: SQLiteScreenQuery.sortOrder,
                limit: SQLiteScreenQuery.limit
            ).count
        case .count:
            return try dao.count(where: SQLiteScreenQuery.predicate)
        }
    }

    /// The same operation through GRDB.
    func runGRDB(_ operation: SQLiteOperation) throws -> Int {
        switch operation {
        case .batchInsert:
            // Two transactions, as on the DAOKit side (erase, then persist).
            try queue.write { db in _ = try GRDBMessage.deleteAll(db) }
            try queue.write { db in for record in records { try record.insert(db) } }
            return count
        case .persistOne:
            let record = records[nextIndex()]
            try queue.write { db in try record.save(db) }
            return 1
        case .readById:
            let id = records[nextIndex()].id
            return try queue.read { db in try GRDBMessage.fetchOne(db, key: id) }?.senderId ?? -1
        case .readAll:
            return try queue.read { db in try GRDBMessage.fetchAll(db) }.count
        case .screen:
            return try queue.read { db in
                try SQLiteScreenQuery.grdbFilter.order(Column("date").desc).limit(SQLiteScreenQuery.limit).fetchAll(db)
            }.count
        case .count:
            return try queue.read { db in try SQLiteScreenQuery.grdbFilter.fetchCount(db) }
        }
    }

    /// Throws unless both sides give the same answers, equal to the answer computed by hand, and
    /// both databases run at the stated durability (WAL; GRDB's connection at synchronous FULL).
    func verify() throws {
        let (mode, synchronous) = try queue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"))
        }
        let daoMode = try DatabaseQueue(path: directory.appendingPathComponent("daokit.sqlite").path)
            .read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        guard mode == "wal", synchronous == 2, daoMode == "wal" else {
            throw SQLiteRatioMismatch(
                "durability differs: GRDB \(mode ?? "?")/\(synchronous ?? -1), DAOKit \(daoMode ?? "?")")
        }
        let all = try dao.read().sorted { $0.id < $1.id }
        let grdbAll = try queue.read { db in try GRDBMessage.fetchAll(db) }.map(\.message).sorted { $0.id < $1.id }
        guard all == messages, grdbAll == messages else { throw SQLiteRatioMismatch("readAll differs (\(count))") }
        let expected = messages.filter { $0.senderId == 7 && !$0.isRead }.sorted { $0.date > $1.date }
        let screen = try dao.read(
            where: SQLiteScreenQuery.predicate, sortedBy: SQLiteScreenQuery.sortOrder, limit: SQLiteScreenQuery.limit)
        let grdbScreen = try queue.read { db in
            try SQLiteScreenQuery.grdbFilter.order(Column("date").desc).limit(SQLiteScreenQuery.limit).fetchAll(db)
        }.map(\.message)
        guard screen == Array(expected.prefix(SQLiteScreenQuery.limit)), grdbScreen == screen else {
            throw SQLiteRatioMismatch("screen query differs (\(count))")
        }
        guard try dao.count(where: SQLiteScreenQuery.predicate) == expected.count,
            try runGRDB(.count) == expected.count
        else { throw SQLiteRatioMismatch("count differs (\(count))") }
        let probe = messages[count / 2]
        guard try dao.read(id: probe.id) == probe,
            try queue.read({ db in try GRDBMessage.fetchOne(db, key: probe.id) })?.message == probe
        else {
            throw SQLiteRatioMismatch("readById differs (\(count))")
        }
    }
}

struct SQLiteRatioMismatch: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = "sqlite section: " + description }
}
