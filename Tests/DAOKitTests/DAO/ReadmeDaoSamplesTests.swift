// The DAO code samples of README.md, kept compiling and passing here. When you change one, change
// the other: each `// README:` marker names the README section the code below it appears in.
// The types are nested in `Readme` only so that their names do not clash with other tests'
// fixtures; in the README they are top-level.
import DAOKit
import DAOKitTesting
import Foundation
import Testing

enum Readme {
    // README: DAO quick start — domain values and their storage entities

    /// What the app works with.
    struct Message: Codable, Identifiable, Equatable {
        var id: UUID
        var dialogID: String
        var author: String
        var text: String
        var date: Date
        var isRead: Bool
    }

    struct Dialog: Codable, Identifiable, Equatable {
        var id: String
        var title: String
        var messages: [Message]
    }

    /// What is stored: the same field names (the mapper matches by name), plus `Storable`.
    struct MessageEntity: Storable {
        var id: UUID
        var dialogID: String
        var author: String
        var text: String
        var date: Date
        var isRead: Bool
    }

    struct DialogEntity: Storable {
        static let entityName = "Dialog"  // optional: the default is the type's name
        var id: String
        var title: String
        var messages: [MessageEntity]
    }

    // README: Subclassing BaseDao

    /// An app's message DAO: BaseDao's methods plus the queries the app needs.
    final class MessagesDao: BaseDao<Message, MessageEntity> {
        func unread(in dialogID: String, limit: Int = 50) throws -> [Message] {
            try read(where: #Predicate { $0.dialogID == dialogID && !$0.isRead },
                     sortedBy: [SortDescriptor(\.date, order: .reverse)],
                     limit: limit)
        }

        func markAllRead(in dialogID: String) throws {
            let read = try unread(in: dialogID, limit: .max).map { message in
                var message = message
                message.isRead = true
                return message
            }
            try persist(read)  // one batch: all or nothing
        }
    }
}

extension Readme {
    @Suite("README DAO samples")
    struct SamplesTests {
        @Test func quickStart() throws {
            // README: DAO quick start — storing and querying
            let context = InMemoryStorageContext()
            let dialogs = BaseDao<Dialog, DialogEntity>(context: context)
            let messages = BaseDao<Message, MessageEntity>(context: context)

            let hello = Message(id: UUID(), dialogID: "family", author: "mum", text: "Dinner at 7?",
                                date: Date(), isRead: false)
            try dialogs.create(Dialog(id: "family", title: "Family", messages: [hello]))
            try messages.persist(hello)

            let family = try dialogs.read(id: "family")              // Dialog? with its messages
            let unread = try messages.read(
                where: #Predicate { $0.dialogID == "family" && !$0.isRead },
                sortedBy: [SortDescriptor(\.date, order: .reverse), SortDescriptor(\.author)],
                limit: 20)
            let unreadCount = try messages.count(where: #Predicate { !$0.isRead })

            var seen = hello
            seen.isRead = true
            try messages.update(seen)                                 // StorageError if it was never stored
            try messages.erase(where: #Predicate { $0.isRead })
            // end of README sample

            #expect(family?.messages == [hello])
            #expect(unread == [hello])
            #expect(unreadCount == 1)
            #expect(try messages.count() == 0)
            #expect(try dialogs.count() == 1)
        }

        @Test func errorsNameWhatFailed() throws {
            let messages = BaseDao<Message, MessageEntity>(context: InMemoryStorageContext())
            let hello = Message(id: UUID(), dialogID: "family", author: "mum", text: "Hi", date: Date(), isRead: false)
            try messages.create(hello)
            var reported: String?
            // README: DAO quick start — errors
            do {
                try messages.create(hello)
            } catch let error as StorageError where error.kind == .duplicateID {
                reported = error.description  // MessageEntity "<uuid>": an entity with this id already exists
            }
            // end of README sample
            #expect(reported == "MessageEntity \"\(hello.id.uuidString)\": an entity with this id already exists")
        }

        @Test func unreadableRecords() throws {
            let context = InMemoryStorageContext()
            // A newer version of the app stored a status this version does not know.
            try context.save([FixtureTaskEntity(id: 1, title: "write report", status: .open)])
            try context.save([FixtureTaskRecord(id: 2, title: "plan trip", status: "archived")])
            var shown: [FixtureTask] = []
            var logged: [String] = []
            // README: Unreadable records
            let tasks = BaseDao<FixtureTask, FixtureTaskEntity>(context: context)
            let found = try tasks.readReadable()   // a bad record is reported, not thrown
            shown = found.values                   // README: show(found.values)
            for failure in found.failures {
                logged.append(failure.description) // README: print(failure)
            }
            let everyID = try tasks.storedIDs()    // readable or not: [1, 2]
            // Drop what this version cannot read (or keep it for the version that can):
            try tasks.erase(storageKeys: found.failures.compactMap(\.storageKey))
            // end of README sample
            #expect(shown == [FixtureTask(id: 1, title: "write report", status: .open)])
            #expect(logged.count == 1)
            #expect(logged.first?.hasPrefix(#"FixtureTask "2": the record could not be decoded"#) == true)
            #expect(everyID.sorted() == [1, 2])
            #expect(try tasks.read().map(\.id) == [1])
        }

        @Test func choosingAContext() throws {
            let suite = TemporarySuite()
            defer { suite.remove() }
            // README: Choosing a context
            let forTests = InMemoryStorageContext()
            let inDefaults = KeyValueStorageContext(store: UserDefaults(suiteName: suite.name)!)  // README: "app.store"
            let inMemoryStore = KeyValueStorageContext(store: InMemoryKeyValueStore(), namespace: "drafts")
            // end of README sample
            for context in [forTests, inDefaults, inMemoryStore] as [any StorageContext] {
                let dao = BaseDao<Message, MessageEntity>(context: context)
                try dao.persist(Message(id: UUID(), dialogID: "d", author: "a", text: "t", date: Date(), isRead: false))
                #expect(try dao.count() == 1)
            }
        }

        @Test func subclassing() throws {
            // README: Subclassing BaseDao — using it
            let messages = MessagesDao(context: InMemoryStorageContext())
            try messages.persist([
                Message(id: UUID(), dialogID: "work", author: "boss", text: "Report?", date: Date(), isRead: false),
                Message(id: UUID(), dialogID: "work", author: "boss", text: "Thanks", date: Date(), isRead: true),
            ])
            let pending = try messages.unread(in: "work")
            try messages.markAllRead(in: "work")
            // end of README sample
            #expect(pending.map(\.text) == ["Report?"])
            #expect(try messages.unread(in: "work").isEmpty)
        }

        @Test func testingYourOwnContext() throws {
            // README: Testing your own context (in your test target, inside a @Test function)
            try StorageContextContract.verify(makeContext: { InMemoryStorageContext() })
            // end of README sample
            #expect(StorageContextContract.checks.count > 20)
        }
    }
}
