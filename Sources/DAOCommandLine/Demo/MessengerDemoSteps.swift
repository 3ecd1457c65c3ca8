import DAOKit

/// The steps of `dao demo` that are the same on every context: the messenger's three DAOs over an
/// emptied store, and the unread messages of two dialogs printed the same way.
struct MessengerDemoSteps {
    let users: Messenger.UsersDao
    let dialogs: Messenger.DialogsDao
    let messages: Messenger.MessagesDao

    /// The DAOs over `store`, after erasing whatever an earlier demo left there.
    /// - Throws: what the erases throw.
    init(emptying store: any StorageContext) throws {
        users = Messenger.UsersDao(context: store)
        dialogs = Messenger.DialogsDao(context: store)
        messages = Messenger.MessagesDao(context: store)
        try users.erase()
        try dialogs.erase()
        try messages.erase()
    }

    /// Step 1 of the demo: saves the sample users, dialogs and messages in three batches and says so
    /// under `heading`; `eachBatch` says what a batch is on this context.
    /// - Throws: what the persists throw.
    func persistSampleData(on console: Console, heading: String, eachBatch: String) throws {
        console.line()
        console.line(heading)
        try users.persist(MessengerSampleData.users)
        try dialogs.persist(MessengerSampleData.dialogs)
        try messages.persist(MessengerSampleData.messages)
        console.line(
            "   persisted \(MessengerSampleData.users.count) users, \(MessengerSampleData.dialogs.count) dialogs and "
                + "\(MessengerSampleData.messages.count) messages: \(eachBatch)")
    }

    /// Prints the unread messages of Family and Work, oldest first, with their authors' names.
    /// - Throws: what the reads throw.
    func printUnread(on console: Console) throws {
        let names = Dictionary(uniqueKeysWithValues: MessengerSampleData.users.map { ($0.id, $0.name) })
        for dialog in ["family", "work"] {
            let title = try dialogs.read(id: dialog)?.title ?? dialog
            console.line("   unread in \(title), oldest first (read(where:sortedBy:)):")
            for message in try messages.unread(in: dialog) {
                let author = names[message.authorID] ?? message.authorID
                console.line(
                    "     \(MessengerSampleData.clockTime(message.date))  \(author.padding(toLength: 6, withPad: " ", startingAt: 0))\(message.text)"
                )
            }
        }
    }
}
