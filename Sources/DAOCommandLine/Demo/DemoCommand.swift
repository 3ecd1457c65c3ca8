import DAOKit
import DAOKitFileStore
import DAOKitInternals
import DAOKitStoreFormat
import Foundation

/// `dao demo [DIR]`: DAOKit's main job in one command, narrated.
///
/// Everything goes through the public API an app uses (`BaseDao`, `FileStorageContext`,
/// `EntityMapper`), so the demo's source doubles as an example; the output says what each step
/// did and shows the errors DAOKit gives when asked for something wrong.
struct DemoCommand {
    let console: Console
    /// How long the mapping comparison may take, which keeps the whole demo near a second.
    var comparisonBudget: Duration = .milliseconds(600)
    /// How many messages each timing round converts: enough to dwarf the clock's overhead.
    var comparisonSize = 500
    /// How the tool was compiled, which decides whether the demo times anything (see
    /// ``printComparison()``); the tests set it to check both.
    var build = BuildConfiguration.current

    private static let entityDirectories = Set(
        [
            Messenger.UserEntity.entityName, Messenger.DialogEntity.entityName, Messenger.MessageEntity.entityName,
        ].map { FileNameCodec.encode($0) })

    func run(directory: String?) throws -> Int32 {
        let (url, note) = try storeDirectory(directory)
        let store: FileStorageContext
        do {
            store = try FileStorageContext(directory: url)
        } catch {
            throw UsageError("dao demo: cannot open a store in \(url.path): \(error)")
        }
        console.line("Store: \(url.path)" + note)
        do {
            try runSteps(in: store)
        } catch let error as StorageError {
            throw CommandFailure("dao demo: \(error)")
        } catch let error as MappingError {
            throw CommandFailure("dao demo: \(error)")
        }
        return ExitStatus.success
    }

    /// DIR, checked so that the demo never writes into a directory holding anything else, or a
    /// fresh temporary directory; with a note on which it is, for the first line of the output.
    private func storeDirectory(_ directory: String?) throws(UsageError) -> (URL, note: String) {
        guard let directory else {
            let url = FileManager.default.temporaryDirectory
                .appendingPathComponent(
                    "dao-demo-" + String(UInt32.random(in: .min ... .max), radix: 16), isDirectory: true)
            return (url, "  (a new temporary directory; delete it when you are done)")
        }
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        let names: [String]
        do throws(FileSystemError) {
            let files = try POSIXFileSystem().confined(to: directory)
            names = try files.contentsOfDirectory(directory)
        } catch  where error.code == ENOENT {
            return (url, "  (new)")
        } catch  where error.code == ENOTDIR {
            // A parent that is not a directory: nothing is there, and creating the store reports it.
            guard (try? POSIXFileSystem().status(atPath: directory)) != nil else { return (url, "  (new)") }
            throw UsageError("dao demo: not a directory: \(directory)")
        } catch {
            throw UsageError("dao demo: cannot use \(directory): \(error.reason)")
        }
        let foreign = names.filter { name in
            name != FileStoreLayout.lockFileName && name != FileStoreLayout.journalFileName
                && !name.hasPrefix(FileStoreLayout.changeLogFileName)
                && !name.hasPrefix(FileStoreLayout.trashDirectoryPrefix) && !Self.entityDirectories.contains(name)
        }
        guard foreign.isEmpty else {
            throw UsageError(
                "dao demo: \(directory) holds other files ('\(foreign.sorted()[0])'); give a new or empty directory, or one an earlier demo wrote"
            )
        }
        return (url, names.isEmpty ? "" : "  (an earlier demo's data is replaced)")
    }

    private func runSteps(in store: FileStorageContext) throws {
        let steps = try MessengerDemoSteps(emptying: store)
        let (users, dialogs, messages) = (steps.users, steps.dialogs, steps.messages)
        try steps.persistSampleData(
            on: console, heading: "1. Saving through BaseDao into a FileStorageContext (one file per record)",
            eachBatch: "three batches, each all or nothing")
        let file = store.fileURL(for: Messenger.MessageEntity.self, id: 3)
        console.line(
            "   message 3 is the file \(file.deletingLastPathComponent().lastPathComponent)/\(file.lastPathComponent):")
        console.line("   " + String(decoding: try Data(contentsOf: file), as: UTF8.self))

        console.line()
        console.line("2. Queries")
        try steps.printUnread(on: console)
        try printPinned(dialogs)
        try printCounts(users: users, dialogs: dialogs, messages: messages)

        console.line()
        console.line("3. Updates and erases")
        let observer = DemoCountObserver(
            messages.observeCount(where: #Predicate { $0.dialogID == "family" && !$0.isRead }))
        let unreadBefore = observer.next()
        let marked = try messages.markAllRead(in: "family")
        console.line(
            "   marked \(marked) messages of Family read in one batch; unread there now: \(try messages.unread(in: "family").count)"
        )
        if let unreadBefore, let unreadAfter = observer.next() {
            console.line(
                "   an observer of that count (observeCount) received the change: \(unreadBefore) → \(unreadAfter)")
        }
        if var bookClub = try dialogs.read(id: "book-club") {
            bookClub.isPinned = true
            try dialogs.update(bookClub)
            console.line("   update: pinned Book club")
        }
        try printPinned(dialogs)
        let oldCount = try messages.count(where: #Predicate { $0.dialogID == "old-project" })
        try messages.erase(where: #Predicate { $0.dialogID == "old-project" })
        try dialogs.erase(id: "old-project")
        console.line("   erase: Old project and its \(oldCount) messages")
        try printCounts(users: users, dialogs: dialogs, messages: messages)

        console.line()
        console.line("   What DAOKit says when asked for something wrong:")
        do {
            try messages.create(MessengerSampleData.messages[2])
        } catch let error as StorageError {
            console.line("   create(message 3) again → StorageError: \(error)")
        }
        do {
            let scheduled = Messenger.ScheduledMessage(
                id: 99, dialogID: "work", authorID: "ann", text: "Done!",
                date: MessengerSampleData.morning, isRead: true, sendAt: MessengerSampleData.morning)
            try BaseDao<Messenger.ScheduledMessage, Messenger.MessageEntity>(context: store).persist(scheduled)
        } catch let error as MappingError {
            console.line("   persist(a value with a field the entity lacks) → MappingError: \(error)")
        }

        console.line()
        try printComparison()

        let quoted = TextLayout.shellQuoted(store.directory.path)
        console.line()
        console.line("Look inside the store:")
        console.line("   swift run dao inspect \(quoted)")
        console.line("   swift run dao dump \(quoted) Message 3")
        console.line("   swift run dao verify \(quoted)")
    }

    private func printPinned(_ dialogs: Messenger.DialogsDao) throws {
        let pinned = try dialogs.read(where: #Predicate { $0.isPinned }, sortedBy: [SortDescriptor(\.title)])
        console.line("   pinned dialogs: " + pinned.map(\.title).joined(separator: ", "))
    }

    private func printCounts(users: Messenger.UsersDao, dialogs: Messenger.DialogsDao, messages: Messenger.MessagesDao)
        throws
    {
        let unread = try messages.count(where: #Predicate { !$0.isRead })
        console.line(
            "   counts: \(try users.count()) users, \(try dialogs.count()) dialogs, \(try messages.count()) messages (\(unread) unread)"
        )
    }

    /// Times EntityMapper against a hand-written translator and a JSON round trip — in a release
    /// build only. In a debug build DAOKit is unoptimized while Foundation's JSON coders (compiled
    /// with the toolchain) are not, so every ratio would understate EntityMapper several times over,
    /// and the first number a new user sees would be wrong: the demo says how to get real numbers
    /// instead of printing misleading ones.
    private func printComparison() throws {
        guard build == .release else {
            console.line("4. What a conversion costs: not timed in this debug build")
            console.line(
                "   DAOKit is unoptimized in a debug build and Foundation's JSON coders are not, so its timings")
            console.line(
                "   would understate EntityMapper several times over. For DAOKit's numbers, build for release:")
            console.line("   swift run -c release dao demo")
            return
        }
        let comparison = MappingComparison(
            messages: MessengerSampleData.manyMessages(comparisonSize), budget: comparisonBudget)
        let (timings, rounds) = try comparison.run()
        console.line(
            "4. What a conversion costs: \(comparisonSize) messages Domain → Entity → Domain, best of \(rounds) rounds")
        let baseline = max(timings[0].nanosecondsPerMessage, 1)
        let rows = timings.map { timing in
            [
                timing.name, Self.duration(timing.nanosecondsPerMessage) + " per message",
                Self.ratio(timing.nanosecondsPerMessage / baseline),
            ]
        }
        for line in TextLayout.table(rows, rightAligned: [1, 2]) { console.line("   " + line) }
        let jsonOverMapper = timings[2].nanosecondsPerMessage / max(timings[1].nanosecondsPerMessage, 1)
        if jsonOverMapper >= 1 {
            console.line(
                "   EntityMapper needs no translator code, and is \(Self.ratio(jsonOverMapper)) faster than the JSON round trip."
            )
        } else {
            console.line(
                "   Here the JSON round trip won: EntityMapper needs no translator code, but was \(Self.ratio(1 / jsonOverMapper)) slower."
            )
        }
    }

    /// Nanoseconds below one microsecond, else microseconds, with a decimal while it matters.
    private static func duration(_ nanoseconds: Double) -> String {
        if nanoseconds < 1000 { return "\(Int(nanoseconds.rounded())) ns" }
        let microseconds = nanoseconds / 1000
        return (microseconds < 100 ? TextLayout.oneDecimal(microseconds) : String(Int(microseconds.rounded()))) + " µs"
    }

    private static func ratio(_ value: Double) -> String {
        (value < 10 ? TextLayout.oneDecimal(value) : String(Int(value.rounded()))) + "×"
    }
}

/// Whether the tool was compiled with optimization, which is what makes timings mean anything.
enum BuildConfiguration: Sendable, Equatable {
    /// `swift build` / `swift run` (the default): unoptimized, with `DEBUG` defined.
    case debug
    /// `swift build -c release`.
    case release

    /// The configuration this code was compiled in.
    static var current: BuildConfiguration {
        #if DEBUG
            return .debug
        #else
            return .release
        #endif
    }
}
