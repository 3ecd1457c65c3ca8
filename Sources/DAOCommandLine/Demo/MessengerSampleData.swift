import Foundation

/// The demo's fixed data: the same every run, so its output can be compared between runs and
/// machines (only the timings and the temporary directory differ).
enum MessengerSampleData {
    /// 2024-05-01 08:00 UTC.
    static let morning = Date(timeIntervalSince1970: 1_714_550_400)

    static let users = [
        Messenger.User(id: "ann", name: "Ann"),
        Messenger.User(id: "bob", name: "Bob"),
        Messenger.User(id: "cleo", name: "Cleo"),
    ]

    static let dialogs = [
        Messenger.Dialog(id: "family", title: "Family", memberIDs: ["ann", "bob"], isPinned: true),
        Messenger.Dialog(id: "work", title: "Work", memberIDs: ["ann", "cleo"], isPinned: true),
        Messenger.Dialog(id: "book-club", title: "Book club", memberIDs: ["ann", "bob", "cleo"], isPinned: false),
        Messenger.Dialog(id: "old-project", title: "Old project", memberIDs: ["ann", "cleo"], isPinned: false),
    ]

    static let messages: [Messenger.Message] = [
        message(1, "family", "bob", minute: 0, "Morning! Are you coming on Sunday?", isRead: true),
        message(2, "family", "ann", minute: 3, "Yes, around noon.", isRead: true),
        message(3, "family", "bob", minute: 41, "Great, I'll make lasagne."),
        message(4, "family", "bob", minute: 44, "Can you bring the photos from the trip?"),
        message(5, "family", "bob", minute: 52, "And dessert, if you have time 🙂"),
        message(6, "work", "cleo", minute: 10, "The release build is green.", isRead: true),
        message(7, "work", "cleo", minute: 70, "It touches the file store, so no rush."),
        message(8, "work", "cleo", minute: 65, "Can you review the migration PR today?"),
        message(
            9, "book-club", "cleo", minute: 20, "Next book: The Left Hand of Darkness.", isRead: true,
            attachment: URL(string: "https://example.org/covers/left-hand.jpg")),
        message(10, "book-club", "bob", minute: 95, "Finally a short one!"),
        message(11, "old-project", "cleo", minute: -1440, "Shall we archive the repository?", isRead: true),
        message(12, "old-project", "ann", minute: -1430, "Yes, let's.", isRead: true),
    ]

    private static func message(
        _ id: Int, _ dialogID: String, _ authorID: String, minute: Int, _ text: String,
        isRead: Bool = false, attachment: URL? = nil
    ) -> Messenger.Message {
        Messenger.Message(
            id: id, dialogID: dialogID, authorID: authorID, text: text,
            date: morning.addingTimeInterval(Double(minute) * 60), isRead: isRead, attachment: attachment)
    }

    /// `count` messages for the timing comparison: the sample messages repeated with new ids.
    static func manyMessages(_ count: Int) -> [Messenger.Message] {
        (0..<count).map { index in
            var message = messages[index % messages.count]
            message.id = 1000 + index
            message.date = message.date.addingTimeInterval(Double(index))
            return message
        }
    }

    /// `HH:mm` in UTC, the sample data's time zone, without locale-dependent formatting.
    static func clockTime(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.hour, .minute], from: date)
        let hour = parts.hour ?? 0
        let minute = parts.minute ?? 0
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }
}
