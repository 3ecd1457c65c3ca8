// swift-format-ignore-file
// Generated from README.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import DAOKitFileStore
import DAOKitSQLite
import Foundation
import Testing

// README.md:88
private struct Message: Codable, Equatable {       // the app's plain, immutable value
    let id: Int
    let text: String
    let date: Date
    let attachment: URL?
}

// README.md:95
private final class MessageRecord: Codable {        // what a store keeps: the same field names
    var id = 0
    var text = ""
    var date = Date.distantPast
    var attachment: URL?
}

// README.md:115
private struct MessagePreview: Codable {
    let id: Int
    let text: String
}

// README.md:137
private struct ChatMessage: Codable, Identifiable, Equatable {
    var id: UUID
    var dialogID: String
    var author: String
    var text: String
    var date: Date
    var isRead: Bool
}

// README.md:146
private struct ChatMessageEntity: Storable {
    static let entityName = "ChatMessage"      // records are stored under this name
    static let indexes = [StorageIndex("dialogID", "date")]
    var id: UUID
    var dialogID: String
    var author: String
    var text: String
    var date: Date
    var isRead: Bool
}

// README.md:190
private final class ChatMessagesDao: BaseDao<ChatMessage, ChatMessageEntity>, @unchecked Sendable {
    func unread(in dialogID: String, limit: Int = 50) throws -> [ChatMessage] {
        try read(where: #Predicate { $0.dialogID == dialogID && !$0.isRead },
                 sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: limit)
    }

    func markAllRead(in dialogID: String) throws {
        let marked = try unread(in: dialogID, limit: .max).map { message in
            var message = message
            message.isRead = true
            return message
        }
        try persist(marked)  // one batch: all or nothing
    }
}

/// Runs the statements of README.md's samples in document order.
@Test("README.md: its samples compile and run")
func readmeSamples() throws {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("doc-sample-README-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // README.md:85
    let mapper = EntityMapper()
    let message = Message(id: 1, text: "Hello", date: Date(), attachment: nil)

    let record = try mapper.map(message, to: MessageRecord.self)        // no translator to write
    let plain = try mapper.map(record, to: Message.self)                // and back
    let records = try mapper.map([message], to: [MessageRecord].self)   // whole arrays too
    // README.md:115
    let preview = try EntityMapper().map(message, to: MessagePreview.self)   // `date` is ignored
    do {
        _ = try EntityMapper(strict: true).map(message, to: MessagePreview.self)
    } catch let error as MappingError {
        print(error)  // Cannot map Message to MessagePreview: the target never reads this key at date
    }
    // README.md:161
    let context = InMemoryStorageContext()
    let messages = BaseDao<ChatMessage, ChatMessageEntity>(context: context)

    let hello = ChatMessage(id: UUID(), dialogID: "family", author: "mum", text: "Dinner at 7?",
                            date: Date(), isRead: false)
    try messages.create(hello)                          // StorageError if the id is stored already
    let stored = try messages.read(id: hello.id)        // ChatMessage?
    let unread = try messages.read(
        where: #Predicate { $0.dialogID == "family" && !$0.isRead },
        sortedBy: [SortDescriptor(\.date, order: .reverse)],
        limit: 20)
    let unreadCount = try messages.count(where: #Predicate { !$0.isRead })

    var seen = hello
    seen.isRead = true
    try messages.update(seen)                           // StorageError if it was never stored
    try messages.erase(where: #Predicate { $0.isRead })
    // README.md:190
    let chats = ChatMessagesDao(context: context)
    try chats.persist(hello)
    try chats.markAllRead(in: "family")
    let stillUnread = try chats.unread(in: "family")
    // README.md:224
    let inFiles = try FileStorageContext(directory: folder.appendingPathComponent("store"))
    let inSQLite = try SQLiteStorageContext(file: folder.appendingPathComponent("messages.sqlite"))
    let filed = BaseDao<ChatMessage, ChatMessageEntity>(context: inFiles)
    let indexed = BaseDao<ChatMessage, ChatMessageEntity>(context: inSQLite)
    try filed.persist(hello)
    try indexed.persist(hello)
    // Every top-level constant and variable of the samples, read once.
    _ = mapper
    _ = message
    _ = record
    _ = plain
    _ = records
    _ = preview
    _ = context
    _ = messages
    _ = hello
    _ = stored
    _ = unread
    _ = unreadCount
    _ = seen
    _ = chats
    _ = stillUnread
    _ = inFiles
    _ = inSQLite
    _ = filed
    _ = indexed
}
