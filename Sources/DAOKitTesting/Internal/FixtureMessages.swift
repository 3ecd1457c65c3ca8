import DAOKit
import Foundation

/// A chat message as an app sees it: the domain type of the contract's messenger fixtures.
package struct FixtureMessage: Codable, Identifiable, Equatable, Sendable {
    /// The identifier.
    package var id: UUID
    /// The dialog the message belongs to.
    package var dialogID: String
    /// Who wrote it.
    package var author: String
    /// What it says.
    package var text: String
    /// When it was sent.
    package var date: Date
    /// Whether the user has read it.
    package var isRead: Bool
    /// 0 (normal) to 2 (urgent).
    package var priority: Int

    /// Creates a message.
    package init(
        id: UUID = UUID(), dialogID: String = "general", author: String = "ann", text: String = "",
        date: Date = Date(timeIntervalSinceReferenceDate: 700_000_000), isRead: Bool = false, priority: Int = 0
    ) {
        self.id = id
        self.dialogID = dialogID
        self.author = author
        self.text = text
        self.date = date
        self.isRead = isRead
        self.priority = priority
    }

    /// `count` messages with distinct ids, texts `"message 0"`…, dates a minute apart, every
    /// third one read, priorities cycling 0, 1, 2: enough variety for predicates and sorting.
    package static func samples(_ count: Int, dialogID: String = "general") -> [FixtureMessage] {
        (0..<count).map { number in
            FixtureMessage(
                dialogID: dialogID, author: number.isMultiple(of: 2) ? "ann" : "bob", text: "message \(number)",
                date: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(number) * 60.25),
                isRead: number.isMultiple(of: 3), priority: number % 3)
        }
    }
}

/// How a ``FixtureMessage`` is stored: the same fields, so it maps strictly both ways.
package struct FixtureMessageEntity: Storable, Equatable, Sendable {
    /// The identifier.
    package var id: UUID
    /// The dialog the message belongs to.
    package var dialogID: String
    /// Who wrote it.
    package var author: String
    /// What it says.
    package var text: String
    /// When it was sent.
    package var date: Date
    /// Whether the user has read it.
    package var isRead: Bool
    /// 0 (normal) to 2 (urgent).
    package var priority: Int

    /// Creates a message entity.
    package init(id: UUID, dialogID: String, author: String, text: String, date: Date, isRead: Bool, priority: Int) {
        self.id = id
        self.dialogID = dialogID
        self.author = author
        self.text = text
        self.date = date
        self.isRead = isRead
        self.priority = priority
    }
}

/// A conversation with its messages nested inside: the contract's nested-entity fixture.
package struct FixtureDialog: Codable, Identifiable, Equatable, Sendable {
    /// The identifier.
    package var id: String
    /// A display name.
    package var title: String
    /// The messages, oldest first.
    package var messages: [FixtureMessage]

    /// Creates a dialog.
    package init(id: String, title: String, messages: [FixtureMessage]) {
        self.id = id
        self.title = title
        self.messages = messages
    }
}

/// How a ``FixtureDialog`` is stored: its messages are stored inside it as entities.
package struct FixtureDialogEntity: Storable, Equatable, Sendable {
    /// The identifier.
    package var id: String
    /// A display name.
    package var title: String
    /// The messages, oldest first.
    package var messages: [FixtureMessageEntity]

    /// Creates a dialog entity.
    package init(id: String, title: String, messages: [FixtureMessageEntity]) {
        self.id = id
        self.title = title
        self.messages = messages
    }
}
