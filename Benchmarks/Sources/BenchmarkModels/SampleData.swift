import Foundation

/// Deterministic sample values, so every run (and every machine) converts exactly the same data.
///
/// Messages vary the way real ones do: every ``MessageType``, incoming and outgoing, read and
/// unread, and the optional `attachment` and `note` each set on some messages and `nil` on others,
/// so both the present and the absent paths of optionals are measured.
public enum SampleData {
    /// How many messages ``dialog`` holds.
    public static let messagesPerDialog = 20

    /// A message with every field set, optionals included: the widest flat record, used for the
    /// `Message` benchmarks.
    public static let message: Message = makeMessage(index: 5)

    /// A pinned dialog of ``messagesPerDialog`` varied messages, used for the `Dialog` benchmarks.
    public static let dialog = Dialog(
        id: 42,
        isPinned: true,
        title: "Weekend trip",
        messages: (0..<messagesPerDialog).map(makeMessage(index:)),
        tags: ["family", "travel", "important"]
    )

    /// A dialog with no messages and no tags, to check that empty arrays convert too.
    public static let emptyDialog = Dialog(id: 43, isPinned: false, title: "", messages: [], tags: [])

    /// The `index`-th message of the sample conversation between users 7 and 11.
    ///
    /// Texts are longer than 15 UTF-8 bytes on purpose: shorter strings are stored inline and would
    /// hide the cost of copying real message bodies.
    public static func makeMessage(index: Int) -> Message {
        let isIncoming = index % 2 == 0
        return Message(
            id: 1_000 + index,
            // Whole and half seconds: exactly representable, so every format round-trips them.
            date: Date(timeIntervalSince1970: 1_700_000_000 + Double(index) * 90.5),
            text: "Message number \(index) about the weekend trip, see you there",
            senderId: isIncoming ? 7 : 11,
            receiverId: isIncoming ? 11 : 7,
            type: MessageType.allCases[index % MessageType.allCases.count],
            isIncoming: isIncoming,
            isRead: index % 3 != 0,
            attachment: index % 4 == 1
                ? URL(string: "https://files.example.com/attachments/\(index).jpg")
                : nil,
            note: index % 5 == 0 ? "Pinned by \(isIncoming ? "Anna" : "Boris")" : nil
        )
    }
}
