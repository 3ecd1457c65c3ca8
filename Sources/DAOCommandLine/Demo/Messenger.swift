import DAOKit
import Foundation

/// The messenger the demo builds: what an app works with (domain values), what it stores
/// (entities), and the DAO subclass that adds the app's own queries.
///
/// Domain and entity types are separate on purpose, as in an app: the entity is the storage
/// contract, the domain value is free to change. `EntityMapper` converts between them by field
/// name, which is what saves writing ``MessageTranslator`` by hand.
enum Messenger {
    // MARK: Domain values

    struct User: Codable, Identifiable, Equatable {
        var id: String
        var name: String
    }

    struct Dialog: Codable, Identifiable, Equatable {
        var id: String
        var title: String
        var memberIDs: [String]
        var isPinned: Bool
    }

    struct Message: Codable, Identifiable, Equatable {
        var id: Int
        var dialogID: String
        var authorID: String
        var text: String
        var date: Date
        var isRead: Bool
        var attachment: URL?
    }

    /// A domain type with a field that `MessageEntity` does not store, to show that the DAO's
    /// strict Domain → Entity mapping refuses to drop it silently.
    struct ScheduledMessage: Codable, Identifiable {
        var id: Int
        var dialogID: String
        var authorID: String
        var text: String
        var date: Date
        var isRead: Bool
        var sendAt: Date
    }

    // MARK: Entities (the stored form; entity names are the directory names `dao dump` takes)

    struct UserEntity: Storable, Equatable {
        static let entityName = "User"
        var id: String
        var name: String
    }

    struct DialogEntity: Storable, Equatable {
        static let entityName = "Dialog"
        var id: String
        var title: String
        var memberIDs: [String]
        var isPinned: Bool
    }

    struct MessageEntity: Storable, Equatable {
        static let entityName = "Message"
        var id: Int
        var dialogID: String
        var authorID: String
        var text: String
        var date: Date
        var isRead: Bool
        var attachment: URL?
    }

    // MARK: DAOs

    /// The app's message DAO: everything `BaseDao` does, plus the queries the screens need.
    final class MessagesDao: BaseDao<Message, MessageEntity>, @unchecked Sendable {
        /// The unread messages of a dialog, oldest first, as a chat screen shows them.
        func unread(in dialogID: String) throws -> [Message] {
            try read(where: #Predicate { $0.dialogID == dialogID && !$0.isRead }, sortedBy: [SortDescriptor(\.date)])
        }

        /// Marks every message of a dialog read in one batch (all or nothing); returns how many.
        func markAllRead(in dialogID: String) throws -> Int {
            let changed = try unread(in: dialogID).map { message in
                var message = message
                message.isRead = true
                return message
            }
            try persist(changed)
            return changed.count
        }
    }

    typealias UsersDao = BaseDao<User, UserEntity>
    typealias DialogsDao = BaseDao<Dialog, DialogEntity>
}

/// The hand-written translator that `EntityMapper` replaces: one line per field, each way, to be
/// kept in step with both types by hand. The demo times it as the baseline.
enum MessageTranslator {
    static func entity(from message: Messenger.Message) -> Messenger.MessageEntity {
        Messenger.MessageEntity(
            id: message.id, dialogID: message.dialogID, authorID: message.authorID, text: message.text,
            date: message.date, isRead: message.isRead, attachment: message.attachment)
    }

    static func message(from entity: Messenger.MessageEntity) -> Messenger.Message {
        Messenger.Message(
            id: entity.id, dialogID: entity.dialogID, authorID: entity.authorID, text: entity.text,
            date: entity.date, isRead: entity.isRead, attachment: entity.attachment)
    }
}
