import Foundation

/// A chat message as the app's domain code sees it: an immutable value.
///
/// Its storage twin is ``MessageEntity``; the field names match, which is all `EntityMapper` needs.
/// `Equatable` lets the benchmarks prove that every conversion they time produces the right value.
public struct Message: Codable, Equatable, Identifiable, Sendable {
    public var id: Int
    public var date: Date
    public var text: String
    public var senderId: Int
    public var receiverId: Int
    public var type: MessageType
    public var isIncoming: Bool
    public var isRead: Bool
    public var attachment: URL?
    public var note: String?

    public init(
        id: Int,
        date: Date,
        text: String,
        senderId: Int,
        receiverId: Int,
        type: MessageType,
        isIncoming: Bool,
        isRead: Bool,
        attachment: URL?,
        note: String?
    ) {
        self.id = id
        self.date = date
        self.text = text
        self.senderId = senderId
        self.receiverId = receiverId
        self.type = type
        self.isIncoming = isIncoming
        self.isRead = isRead
        self.attachment = attachment
        self.note = note
    }
}
