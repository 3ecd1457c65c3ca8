import Foundation

// Types shared by the mapping suites: the messenger example from the README.

enum MessageKind: String, Codable, Equatable, Sendable {
    case text, photo, voice
}

struct Message: Codable, Equatable, Identifiable, Sendable {
    let id: Int
    let date: Date
    let text: String
    let senderId: Int
    let receiverId: Int
    let type: MessageKind
    let isIncoming: Bool
    let isRead: Bool
    let attachment: URL?
    let note: String?

    static func sample(_ id: Int = 1, attachment: URL? = URL(string: "https://example.com/a.png"), note: String? = nil)
        -> Message
    {
        Message(
            id: id, date: Date(timeIntervalSinceReferenceDate: 700_000_000.123_456 + Double(id)),
            text: "Hello #\(id), with unicode: héllo 👋", senderId: 10 + id, receiverId: 20 + id,
            type: id % 2 == 0 ? .photo : .text, isIncoming: id % 2 == 0, isRead: id % 3 == 0,
            attachment: attachment, note: note)
    }
}

final class MessageEntity: Codable {
    var id: Int = 0
    var date: Date = Date(timeIntervalSince1970: 0)
    var text: String = ""
    var senderId: Int = 0
    var receiverId: Int = 0
    var type: MessageKind = .text
    var isIncoming: Bool = false
    var isRead: Bool = false
    var attachment: URL?
    var note: String?
}

struct Dialog: Codable, Equatable, Sendable {
    let id: Int
    let isPinned: Bool
    let title: String
    let messages: [Message]
    let tags: [String]
}

final class DialogEntity: Codable {
    var id: Int = 0
    var isPinned: Bool = false
    var title: String = ""
    var messages: [MessageEntity] = []
    var tags: [String] = []
}

extension MessageEntity {
    /// The fields as a plain value, to compare with `==`.
    var plain: Message {
        Message(
            id: id, date: date, text: text, senderId: senderId, receiverId: receiverId, type: type,
            isIncoming: isIncoming, isRead: isRead, attachment: attachment, note: note)
    }
}
