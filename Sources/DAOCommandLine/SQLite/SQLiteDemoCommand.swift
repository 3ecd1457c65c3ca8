import DAOKit
import DAOKitSQLite
import Foundation

/// `dao demo --sqlite [FILE]`: the same messenger as `dao demo`, stored through BaseDao in an
/// `SQLiteStorageContext` database file, so that `dao inspect`, `dump` and `verify` can be tried
/// on a database too.
struct SQLiteDemoCommand {
    /// The option that selects this demo.
    static let option = "--sqlite"
    let console: Console

    func run(file: String?) throws -> Int32 {
        let path: String
        var note = ""
        if let file {
            path = file
            if FileManager.default.fileExists(atPath: file) {
                guard SQLiteStoreFile.isDatabase(file) else {
                    throw UsageError(
                        "dao demo: \(file) exists and is not an SQLite database; give a new file, or one an earlier demo wrote"
                    )
                }
                note = "  (an earlier demo's data is replaced)"
            } else {
                note = "  (new)"
            }
        } else {
            path =
                FileManager.default.temporaryDirectory
                .appendingPathComponent("dao-demo-" + String(UInt32.random(in: .min ... .max), radix: 16) + ".sqlite")
                .path
            note = "  (a new temporary file; delete it and its -wal and -shm when you are done)"
        }
        let store: SQLiteStorageContext
        do {
            store = try SQLiteStorageContext(file: URL(fileURLWithPath: path))
        } catch {
            throw UsageError("dao demo: cannot open an SQLite store at \(path): \(error)")
        }
        console.line("SQLite store: \(path)" + note)
        do {
            try runSteps(in: store, path: path)
        } catch let error as StorageError {
            throw CommandFailure("dao demo: \(error)")
        } catch let error as MappingError {
            throw CommandFailure("dao demo: \(error)")
        }
        return ExitStatus.success
    }

    private func runSteps(in store: SQLiteStorageContext, path: String) throws {
        let steps = try MessengerDemoSteps(emptying: store)
        let (users, dialogs, messages) = (steps.users, steps.dialogs, steps.messages)
        try steps.persistSampleData(
            on: console,
            heading: "1. Saving through BaseDao into an SQLiteStorageContext (a table per entity, a column per field)",
            eachBatch: "three transactions, each all or nothing, each synced")
        let database = try SQLiteStoreFile(path: path, command: "demo")
        let columns = try database.fieldColumns(of: Messenger.MessageEntity.entityName)
        if let row = try database.rows("SELECT * FROM \"Message\" WHERE daokit_key = '3'").first {
            let kinds = try database.kinds(of: Messenger.MessageEntity.entityName)
            let fields = columns.enumerated().compactMap { position, column in
                SQLiteDumpCommand.json(row[position + 1], kinds: kinds[column] ?? []).map {
                    "\(column)=\(JSONWriter.pretty($0))"
                }
            }
            console.line("   message 3 is a row of the table Message: " + fields.joined(separator: ", "))
        }

        console.line()
        console.line("2. Queries, in SQL where SQL answers exactly as Swift would")
        try steps.printUnread(on: console)
        let pinned = try dialogs.read(where: #Predicate { $0.isPinned }, sortedBy: [SortDescriptor(\.title)])
        console.line("   pinned dialogs: " + pinned.map(\.title).joined(separator: ", "))

        console.line()
        console.line("3. Updates and erases")
        let marked = try messages.markAllRead(in: "family")
        console.line(
            "   marked \(marked) messages of Family read in one transaction; unread there now: \(try messages.unread(in: "family").count)"
        )
        let oldCount = try messages.count(where: #Predicate { $0.dialogID == "old-project" })
        try messages.erase(where: #Predicate { $0.dialogID == "old-project" })
        try dialogs.erase(id: "old-project")
        console.line("   erase: Old project and its \(oldCount) messages (one DELETE)")
        let unread = try messages.count(where: #Predicate { !$0.isRead })
        console.line(
            "   counts: \(try users.count()) users, \(try dialogs.count()) dialogs, \(try messages.count()) messages (\(unread) unread)"
        )
        do {
            try messages.create(MessengerSampleData.messages[2])
        } catch let error as StorageError {
            console.line("   create(message 3) again → StorageError: \(error)")
        }

        let quoted = TextLayout.shellQuoted(path)
        console.line()
        console.line("Look inside the database (or with the sqlite3 shell):")
        console.line("   swift run dao inspect \(quoted)")
        console.line("   swift run dao dump \(quoted) Message 3")
        console.line("   swift run dao verify \(quoted)")
    }
}
