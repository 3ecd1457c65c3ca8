import DAOKit
import Foundation

/// The messenger's message, as the app sees it.
struct Message: Codable, Identifiable, Sendable {
    var id: UUID
    var dialogID: String
    var date: Date
    var isRead: Bool
    var text: String
}

/// How it is stored: indexed for the screen query (one dialog's newest messages).
struct MessageEntity: Storable {
    static let indexes = [StorageIndex("dialogID", "date")]
    var id: UUID
    var dialogID: String
    var date: Date
    var isRead: Bool
    var text: String
}

/// `count` messages in 100 dialogs, with distinct dates.
func makeMessages(_ count: Int) -> [Message] {
    (0..<count).map { index in
        Message(
            id: UUID(), dialogID: "dialog-\(index % 100)",
            date: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index)),
            isRead: index % 3 == 0, text: "Message number \(index), long enough to look like a real one.")
    }
}
