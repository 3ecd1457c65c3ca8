import BenchmarkModels
import DAOKit
import Foundation

/// The query every chat screen runs — one dialog's unread messages, newest first, 20 of them —
/// and its count, written once for each engine: as the `#Predicate` and `SortDescriptor` that
/// `BaseDao` takes, as SQL for GRDB, and by hand (the right answer).
enum ScreenQuery {
    static let pageSize = 20

    static func predicate(dialog: Int) -> Predicate<DialogMessage> {
        #Predicate<DialogMessage> { $0.dialogID == dialog && $0.isRead == false }
    }

    static var sortOrder: [SortDescriptor<DialogMessage>] {
        [SortDescriptor(\DialogMessage.date, order: .reverse)]
    }

    /// The screen query as `BaseDao` hands it to a context: what the scan every query was before
    /// indexes and the file context's cache evaluates on every entity.
    static func storageQuery(dialog: Int) -> StorageQuery {
        StorageQuery(
            filter: .and([.compare("dialogID", .equal, .int(Int64(dialog))), .compare("isRead", .equal, .bool(false))]),
            sort: [StorageSortKey("date", order: .reverse)], limit: pageSize)
    }

    /// Every unread message, through a computed property: a predicate no context is handed.
    static var computedPredicate: Predicate<DialogMessage> {
        #Predicate<DialogMessage> { $0.isUnread }
    }

    static let tableName = "dialogMessage"
    static let screenSQL =
        "SELECT * FROM \(tableName) WHERE dialogID = ? AND isRead = 0 ORDER BY date DESC LIMIT \(pageSize)"
    static let countSQL = "SELECT COUNT(*) FROM \(tableName) WHERE dialogID = ? AND isRead = 0"

    /// The screen's messages for `dialog`, by hand.
    static func expectedScreen(_ messages: [DialogMessage], dialog: Int) -> [DialogMessage] {
        Array(messages.filter { $0.dialogID == dialog && !$0.isRead }.sorted { $0.date > $1.date }.prefix(pageSize))
    }

    /// The count for `dialog`, by hand.
    static func expectedCount(_ messages: [DialogMessage], dialog: Int) -> Int {
        messages.reduce(0) { $0 + ($1.dialogID == dialog && !$1.isRead ? 1 : 0) }
    }
}

/// The dialogs successive iterations of one variant query: every variant walks the same sequence,
/// so all do the same work, and no two queries in a row ask for the same dialog (a cache of the
/// last answer would measure nothing).
final class DialogCycle {
    private var next = 0

    /// The next dialog: 0, 37, 74, 11, … (37 is coprime with 100, so every dialog comes up).
    func advance() -> Int {
        defer { next = (next + 37) % SampleData.dialogCount }
        return next
    }
}
