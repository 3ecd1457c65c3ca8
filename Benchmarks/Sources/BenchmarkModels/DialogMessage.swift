import Foundation

/// A chat message that knows its dialog: ``Message``'s fields plus `dialogID`, for the query
/// benchmarks, whose screen query selects one dialog's messages.
///
/// A type of its own rather than a field added to ``Message``, so the mapping and storage
/// benchmarks keep measuring exactly what they measured before.
public struct DialogMessage: Codable, Equatable, Identifiable, Sendable {
    public var id: Int
    public var dialogID: Int
    public var date: Date
    public var text: String
    public var senderId: Int
    public var receiverId: Int
    public var type: MessageType
    public var isIncoming: Bool
    public var isRead: Bool
    public var attachment: URL?
    public var note: String?

    /// Whether the message is still unread: a computed property, so a query on it cannot be
    /// handed to a context and shows what a predicate DAOKit cannot translate costs.
    public var isUnread: Bool { !isRead }

    /// `message` placed in dialog `dialogID`.
    public init(_ message: Message, dialogID: Int) {
        id = message.id
        self.dialogID = dialogID
        date = message.date
        text = message.text
        senderId = message.senderId
        receiverId = message.receiverId
        type = message.type
        isIncoming = message.isIncoming
        isRead = message.isRead
        attachment = message.attachment
        note = message.note
    }
}

extension SampleData {
    /// How many dialogs ``dialogMessages(count:)`` spreads messages over.
    public static let dialogCount = 100

    /// `count` distinct messages (``makeMessage(index:)``, all dates different) spread round-robin
    /// over ``dialogCount`` dialogs: message `i` is in dialog `i % 100`, and a third of every
    /// dialog's messages are unread.
    public static func dialogMessages(count: Int) -> [DialogMessage] {
        (0..<count).map { DialogMessage(makeMessage(index: $0), dialogID: $0 % dialogCount) }
    }
}
