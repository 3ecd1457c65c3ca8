// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:15
private struct Message: Codable, Identifiable, Equatable {
    var id: UUID
    var dialogID: String
    var author: String
    var text: String
    var date: Date
    var isRead: Bool
}

// Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:24
private struct Dialog: Codable, Identifiable, Equatable {
    var id: String
    var title: String
    var messages: [Message]
}

// Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:30
// What is stored: the same field names (the mapper matches by name), plus `Storable`.
private struct MessageEntity: Storable {
    static let entityName = "Message"
    var id: UUID
    var dialogID: String
    var author: String
    var text: String
    var date: Date
    var isRead: Bool
}

// Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:41
private struct DialogEntity: Storable {
    static let entityName = "Dialog"
    var id: String
    var title: String
    var messages: [MessageEntity]
}

// Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:119
private struct Chore: Codable, Identifiable, Equatable {
    var id: Int
    var title: String
}

// Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:124
private struct ChoreEntity: Storable {
    static let entityName = "Chore"   // explicit: renaming the type keeps the records
    var id: Int
    var title: String
    var syncedAt: Date?            // storage-only: works as it is
}

// Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:131
private final class RevisedChoreEntity: Storable {
    static let entityName = "RevisedChore"
    var id = 0
    var title = ""
    var revision = 0               // storage-only, with a default

    enum CodingKeys: String, CodingKey { case id, title, revision }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        title = try container.decode(String.self, forKey: .title)
        revision = try container.decodeIfPresent(Int.self, forKey: .revision) ?? 0
    }
}

// Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:173
private final class MessagesDao: BaseDao<Message, MessageEntity>, @unchecked Sendable {
    func unread(in dialogID: String, limit: Int = 50) throws -> [Message] {
        try read(where: #Predicate { $0.dialogID == dialogID && !$0.isRead },
                 sortedBy: [SortDescriptor(\.date, order: .reverse)],
                 limit: limit)
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

// Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:200
private enum ValidationError: Error { case emptyText }

// Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:202
private final class ValidatedMessagesDao: BaseDao<Message, MessageEntity>, @unchecked Sendable {
    override func persist(_ message: Message) throws {
        guard !message.text.isEmpty else { throw ValidationError.emptyText }
        try super.persist(message)
    }
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md: its samples compile and run")
func dAOsAndSubclassingSamples() throws {
    // Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:12
    let context = InMemoryStorageContext()
    let dialogs = BaseDao<Dialog, DialogEntity>(context: context)
    let messages = BaseDao<Message, MessageEntity>(context: context)

    let hello = Message(id: UUID(), dialogID: "family", author: "mum", text: "Dinner at 7?",
                        date: Date(), isRead: false)
    try dialogs.create(Dialog(id: "family", title: "Family", messages: [hello]))
    try messages.persist(hello)
    let family = try dialogs.read(id: "family")            // Dialog? with its messages
    assert(family?.messages == [hello])
    // Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:104
    do {
        try messages.create(hello)
        assertionFailure("the id is stored already")
    } catch let error as StorageError where error.kind == .duplicateID {
        print(error)  // Message "<uuid>": an entity with this id already exists
    }
    // Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:119
    let chores = BaseDao<Chore, ChoreEntity>(context: context)
    let revisedChores = BaseDao<Chore, RevisedChoreEntity>(context: context)
    try chores.persist(Chore(id: 1, title: "Buy milk"))
    try revisedChores.persist(Chore(id: 1, title: "Buy bread"))
    // Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:173
    let inbox = MessagesDao(context: context)
    let pending = try inbox.unread(in: "family")
    try inbox.markAllRead(in: "family")
    // Sources/DAOKit/DAOKit.docc/DAOsAndSubclassing.md:200
    let validated = ValidatedMessagesDao(context: context)
    var empty = hello
    empty.text = ""
    do {
        try validated.persist(empty)
        assertionFailure("the override refuses an empty text")
    } catch ValidationError.emptyText {
    }
    // Every top-level constant and variable of the samples, read once.
    _ = context
    _ = dialogs
    _ = messages
    _ = hello
    _ = family
    _ = chores
    _ = revisedChores
    _ = inbox
    _ = pending
    _ = validated
    _ = empty
}
