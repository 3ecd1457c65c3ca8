import BenchmarkModels
import Foundation

/// The query the DAO benchmarks run, written both ways: as the Foundation `Predicate` and
/// `SortDescriptor` that `BaseDao.read(where:sortedBy:)` takes, and as the closures an app would
/// write by hand. Both must select and order exactly the same messages.
///
/// "Unread messages from user 7, newest first": a sixth of the stored messages, so filtering,
/// sorting (about 1,700 values) and mapping (all 10,000) all weigh in.
enum BenchmarkedQuery {
    static var predicate: Predicate<Message> {
        #Predicate<Message> { $0.senderId == 7 && $0.isRead == false }
    }

    static var sortOrder: [SortDescriptor<Message>] {
        [SortDescriptor(\Message.date, order: .reverse)]
    }

    /// The predicate, by hand.
    static func matches(_ message: Message) -> Bool {
        message.senderId == 7 && !message.isRead
    }

    /// The sort order, by hand: newest first.
    static func precedes(_ first: Message, _ second: Message) -> Bool {
        first.date > second.date
    }

    /// The right answer for `messages`, by hand.
    static func expectedResult(_ messages: [Message]) -> [Message] {
        messages.filter(matches).sorted(by: precedes)
    }
}
