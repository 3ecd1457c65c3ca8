// A child process for FileStorageContext's crash and multi-process tests.
//
//   DAOKitCrashWriter batches <directory>
//       Writes batches forever until killed. Batch g saves base-0…base-7 (overwrites) and
//       insert-g-0…insert-g-3 (inserts), all with generation g; then deletes insert-(g-2)-*; then
//       saves "single" with generation g. Payload lengths vary with g, so a torn file shows.
//       Prints "ready" once the store is open and consistent, and "committed g" after batch g.
//   DAOKitCrashWriter writer <directory> <prefix> <count>
//       Saves <prefix>-0 … <prefix>-(count-1), singly and in batches of 5, then prints "done".
//   DAOKitCrashWriter sqlite-batches <database file>
//   DAOKitCrashWriter sqlite-writer <database file> <prefix> <count>
//       The same two, through an SQLiteStorageContext on the database file (its crash and
//       multi-process tests).
//   DAOKitCrashWriter transactions <directory>
//   DAOKitCrashWriter sqlite-transactions <database file>
//       Runs transactions forever until killed, each over two entity types: transaction g creates
//       the task task-g and its comment comment-g (both with sequence number g), removes task-(g-3)
//       and comment-(g-3), and moves one unit from the task type's "balance" record to the
//       comment type's (both then name g as the last transaction). Prints "ready" once the store
//       is open, and "committed g" after transaction g. CrashWriterHistory.checkTransactions
//       states what must hold after any kill.
//   DAOKitCrashWriter sqlite-readonly <database file> <uid>
//       Gives up root for <uid>, opens a database it may not write to, and prints what happens
//       (see runSQLiteReadOnly).
//   DAOKitCrashWriter defaults <suite> <prefix> <count>
//       Saves <prefix>-0 … <prefix>-(count-1) one by one through a KeyValueStorageContext on the
//       UserDefaults suite <suite>, then prints "done" (KeyValueStorageContext's multi-process tests).
//   DAOKitCrashWriter readonly <directory> <batch size> [<uid>]
//       Opens a store it may not write to, reads it, tries to save <batch size> records and to
//       delete them all, and reads it again, printing what happened line by line (see
//       runReadOnly). With <uid>, first gives up root for that user and group, so that permission
//       bits bind even when the tests run as root.
//   DAOKitCrashWriter unique <files|sqlite> <path> <prefix> <rounds>
//       For round r, inserts the account <prefix>-r with the e-mail user-r (unique): prints "won r"
//       or, when another process holds the e-mail, "lost r"; then "done". Any other error exits 1
//       (the unique indexes' multi-process tests).
//   DAOKitCrashWriter trylock <directory>
//       Tries once, without waiting, to take <directory>/.lock exclusively, as another process's
//       writer would; prints "acquired" (and releases it) or "busy".
import DAOKit
import DAOKitFileStore
import DAOKitSQLite
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct CrashRecord: Storable, Equatable {
    static var entityName: String { "CrashRecord" }
    var id: String
    var generation: Int
    var payload: String

    /// The payload batch `generation` writes into record `id`: its length varies with both.
    static func payload(id: String, generation: Int) -> String {
        String(repeating: "g\(generation)-\(id);", count: 1 + (generation * 7 + id.utf8.count) % 40)
    }

    init(id: String, generation: Int) {
        self.id = id
        self.generation = generation
        payload = Self.payload(id: id, generation: generation)
    }
}

func insertIDs(_ generation: Int) -> [String] { (0..<4).map { "insert-\(generation)-\($0)" } }

func runBatches(context: any StorageContext) throws {
    var generation = try context.fetch(CrashRecord.self, id: "base-0")?.generation ?? 0
    // Finish what a killed predecessor may have left out, so the invariants hold for the next kill.
    if generation >= 3 { try context.delete(CrashRecord.self, ids: insertIDs(generation - 2)) }
    if generation >= 1 { try context.save([CrashRecord(id: "single", generation: generation)]) }
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while true {
        generation += 1
        let batch =
            (0..<8).map { CrashRecord(id: "base-\($0)", generation: generation) }
            + insertIDs(generation).map { CrashRecord(id: $0, generation: generation) }
        try context.save(batch)
        if generation >= 3 { try context.delete(CrashRecord.self, ids: insertIDs(generation - 2)) }
        try context.save([CrashRecord(id: "single", generation: generation)])
        // Lets the parent kill after a chosen number of batches rather than after a chosen time,
        // which on a loaded machine may pass before the first batch lands.
        FileHandle.standardOutput.write(Data("committed \(generation)\n".utf8))
    }
}

/// A task of the two-type crash harness (`transactions`); "balance" is the type's counter.
struct CrashTask: Storable, Equatable {
    static var entityName: String { "CrashTask" }
    var id: String
    var sequence: Int
    var value: Int
    var payload: String
}

/// A comment of the two-type crash harness, the task's counterpart in the other type.
struct CrashComment: Storable, Equatable {
    static var entityName: String { "CrashComment" }
    var id: String
    var sequence: Int
    var value: Int
    var payload: String
}

/// What transaction `sequence` writes into record `id`: its length varies with both, so a torn
/// file shows.
func transactionPayload(id: String, sequence: Int) -> String {
    String(repeating: "s\(sequence)-\(id);", count: 1 + (sequence * 7 + id.utf8.count) % 40)
}

func runTransactions<C: TransactionalStorageContext>(context: C) throws {
    var sequence = try context.fetch(CrashTask.self, id: "balance")?.sequence ?? 0
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while true {
        sequence += 1
        let g = sequence
        try context.transaction { tx in
            let taskBalance = try tx.fetch(CrashTask.self, id: "balance")?.value ?? 0
            let commentBalance = try tx.fetch(CrashComment.self, id: "balance")?.value ?? 0
            try tx.save([
                CrashTask(
                    id: "task-\(g)", sequence: g, value: 0, payload: transactionPayload(id: "task-\(g)", sequence: g)),
                CrashTask(
                    id: "balance", sequence: g, value: taskBalance - 1,
                    payload: transactionPayload(id: "balance", sequence: g)),
            ])
            try tx.save([
                CrashComment(
                    id: "comment-\(g)", sequence: g, value: 0,
                    payload: transactionPayload(id: "comment-\(g)", sequence: g)),
                CrashComment(
                    id: "balance", sequence: g, value: commentBalance + 1,
                    payload: transactionPayload(id: "balance", sequence: g)),
            ])
            if g > 3 {
                try tx.delete(CrashTask.self, ids: ["task-\(g - 3)"])
                try tx.delete(CrashComment.self, ids: ["comment-\(g - 3)"])
            }
        }
        FileHandle.standardOutput.write(Data("committed \(g)\n".utf8))
    }
}

/// The first version of the record the `migrations` harness writes.
struct CrashMigrationV1: Storable {
    static var entityName: String { "CrashMigration" }
    var id: String
    var generation: Int
    var label: String
}

/// The second: `label` renamed `title`, `weight` added (default 1).
struct CrashMigrationV2: Storable {
    static var entityName: String { "CrashMigration" }
    static let schema = EntitySchema(
        version: 2, steps: [2: [.renamed("label", to: "title"), .added("weight", default: 1)]])
    var id: String
    var generation: Int
    var title: String
    var weight: Int
}

/// How many records the `migrations` harness writes per generation.
let migrationRecords = 300

/// Forever: replaces every record with version 1 records of the next generation (one
/// transaction), then migrates them to version 2 with `migrate()`. The parent kills it at random
/// and checks that the records are all of one version and one generation.
func runMigrations<C: VersionedStorageContext>(context: C) throws {
    let dao = BaseDao<CrashMigrationV2, CrashMigrationV2>(context: context)
    var generation = try dao.read().map(\.generation).max() ?? 0
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while true {
        generation += 1
        let g = generation
        try context.transaction { tx in
            try tx.deleteAll(CrashMigrationV2.self)
            try tx.save(
                (0..<migrationRecords).map { CrashMigrationV1(id: "m\($0)", generation: g, label: "g\(g)-\($0)") })
        }
        FileHandle.standardOutput.write(Data("seeded \(g)\n".utf8))
        let migrated = try dao.migrate()
        FileHandle.standardOutput.write(Data("migrated \(g) \(migrated)\n".utf8))
    }
}

func runWriter(context: any StorageContext, prefix: String, count: Int) throws {
    var index = 0
    while index < count {
        if index % 10 == 5 && index + 5 <= count {
            try context.save((index..<(index + 5)).map { CrashRecord(id: "\(prefix)-\($0)", generation: $0) })
            index += 5
        } else {
            try context.save([CrashRecord(id: "\(prefix)-\(index)", generation: index)])
            index += 1
        }
    }
    FileHandle.standardOutput.write(Data("done\n".utf8))
}

/// The account the `unique` mode writes: one per e-mail address.
struct UniqueAccount: Storable {
    static var entityName: String { "UniqueAccount" }
    static let indexes = [StorageIndex("email", unique: true)]
    var id: String
    var email: String
}

func runUniqueWriter(context: any StorageContext, prefix: String, rounds: Int) throws {
    for round in 0..<rounds {
        do {
            try context.save([UniqueAccount(id: "\(prefix)-\(round)", email: "user-\(round)")], mode: .insert)
            say("won \(round)")
        } catch let error as StorageError where error.code == .uniqueViolation {
            say("lost \(round)")
        }
    }
    say("done")
}

func runDefaultsWriter(suite: String, prefix: String, count: Int) throws {
    guard let defaults = UserDefaults(suiteName: suite) else {
        FileHandle.standardError.write(Data("DAOKitCrashWriter: no UserDefaults suite \(suite)\n".utf8))
        exit(2)
    }
    let context = KeyValueStorageContext(store: defaults)
    for index in 0..<count {
        try context.save([CrashRecord(id: "\(prefix)-\(index)", generation: index)])
    }
    FileHandle.standardOutput.write(Data("done\n".utf8))
}

/// Drops root for the rest of the process: groups first, because once the user id is not root any
/// more they can no longer be changed. Exits with status 3 when the system refuses.
func becomeUser(_ uid: uid_t) {
    guard setgroups(0, nil) == 0, setgid(gid_t(uid)) == 0, setuid(uid) == 0, geteuid() == uid else {
        FileHandle.standardError.write(
            Data("DAOKitCrashWriter: cannot become user \(uid): \(String(cString: strerror(errno)))\n".utf8))
        exit(3)
    }
}

/// Writes one line of the report on standard output.
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

/// `id=generation` for every stored record, sorted by id, comma-separated.
func records(_ context: any StorageContext) throws -> String {
    try context.fetchAll(CrashRecord.self).sorted { $0.id < $1.id }.map { "\($0.id)=\($0.generation)" }.joined(
        separator: ",")
}

/// Prints, one per line: `euid <n>`; `writable yes|no` (whether the system lets this process
/// create files in the directory); `before <records>`; `save failed|succeeded <description>`;
/// `save location <path>`; `deleteAll failed|succeeded <description>`; `after <records>`, where
/// `<records>` is `id=generation` for every record, sorted by id.
func runReadOnly(directory: URL, batchSize: Int, uid: uid_t?) throws {
    if let uid {
        becomeUser(uid)
    }
    say("euid \(geteuid())")
    say("writable \(access(directory.path, W_OK) == 0 ? "yes" : "no")")
    let context = try FileStorageContext(directory: directory)
    say("before " + (try records(context)))
    let batch = (0..<batchSize).map { CrashRecord(id: $0 == 0 ? "base-0" : "new-\($0)", generation: 99) }
    do {
        try context.save(batch)
        say("save succeeded")
    } catch let error as StorageError {
        say("save failed \(error)")
        say("save location \(error.location ?? "")")
    }
    do {
        try context.deleteAll(CrashRecord.self)
        say("deleteAll succeeded")
    } catch let error as StorageError {
        say("deleteAll failed \(error)")
    }
    say("after " + (try records(context)))
}

/// Prints, one per line: `open failed <error>`, or `before <records>`; `save failed <error>` (or
/// `save succeeded`); `after <records>`.
func runSQLiteReadOnly(file: URL, uid: uid_t) throws {
    becomeUser(uid)
    let context: SQLiteStorageContext
    do {
        context = try SQLiteStorageContext(file: file)
    } catch {
        say("open failed \(error)")
        return
    }
    say("before " + (try records(context)))
    do {
        try context.save([CrashRecord(id: "new", generation: 99)])
        say("save succeeded")
    } catch {
        say("save failed \(error)")
    }
    say("after " + (try records(context)))
}

/// Prints whether another process holds the store's lock (shared or exclusive) right now.
func runTryLock(directory: URL) {
    let path = directory.appendingPathComponent(".lock").path
    let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    guard fd >= 0 else {
        FileHandle.standardError.write(
            Data("DAOKitCrashWriter: cannot open \(path): \(String(cString: strerror(errno)))\n".utf8))
        exit(1)
    }
    defer { close(fd) }
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
        if errno == EINTR { continue }
        if errno == EWOULDBLOCK {
            FileHandle.standardOutput.write(Data("busy\n".utf8))
            return
        }
        FileHandle.standardError.write(
            Data("DAOKitCrashWriter: flock \(path): \(String(cString: strerror(errno)))\n".utf8))
        exit(1)
    }
    FileHandle.standardOutput.write(Data("acquired\n".utf8))
}

let arguments = CommandLine.arguments
do {
    switch (arguments.count, arguments.count > 1 ? arguments[1] : "") {
    case (3, "batches"):
        try runBatches(context: try FileStorageContext(directory: URL(fileURLWithPath: arguments[2])))
    case (5, "writer"):
        try runWriter(
            context: try FileStorageContext(directory: URL(fileURLWithPath: arguments[2])), prefix: arguments[3],
            count: Int(arguments[4]) ?? 0)
    case (3, "sqlite-batches"):
        try runBatches(context: try SQLiteStorageContext(file: URL(fileURLWithPath: arguments[2])))
    case (3, "transactions"):
        try runTransactions(context: try FileStorageContext(directory: URL(fileURLWithPath: arguments[2])))
    case (3, "sqlite-transactions"):
        try runTransactions(context: try SQLiteStorageContext(file: URL(fileURLWithPath: arguments[2])))
    case (3, "migrations"):
        try runMigrations(context: try FileStorageContext(directory: URL(fileURLWithPath: arguments[2])))
    case (3, "sqlite-migrations"):
        try runMigrations(context: try SQLiteStorageContext(file: URL(fileURLWithPath: arguments[2])))
    case (5, "sqlite-writer"):
        try runWriter(
            context: try SQLiteStorageContext(file: URL(fileURLWithPath: arguments[2])), prefix: arguments[3],
            count: Int(arguments[4]) ?? 0)
    case (5, "defaults"):
        try runDefaultsWriter(suite: arguments[2], prefix: arguments[3], count: Int(arguments[4]) ?? 0)
    case (4, "readonly"), (5, "readonly"):
        // A uid that does not parse must not quietly leave the child running as root.
        let uid = arguments.count == 5 ? uid_t(arguments[4]) : nil
        guard arguments.count == 4 || uid != nil, let batchSize = Int(arguments[3]) else {
            FileHandle.standardError.write(Data("DAOKitCrashWriter: bad readonly arguments\n".utf8))
            exit(2)
        }
        try runReadOnly(directory: URL(fileURLWithPath: arguments[2]), batchSize: batchSize, uid: uid)
    case (4, "sqlite-readonly"):
        guard let uid = uid_t(arguments[3]) else {
            FileHandle.standardError.write(Data("DAOKitCrashWriter: bad sqlite-readonly arguments\n".utf8))
            exit(2)
        }
        try runSQLiteReadOnly(file: URL(fileURLWithPath: arguments[2]), uid: uid)
    case (6, "unique"):
        let path = URL(fileURLWithPath: arguments[3])
        let context: any StorageContext =
            arguments[2] == "sqlite" ? try SQLiteStorageContext(file: path) : try FileStorageContext(directory: path)
        try runUniqueWriter(context: context, prefix: arguments[4], rounds: Int(arguments[5]) ?? 0)
    case (3, "trylock"):
        runTryLock(directory: URL(fileURLWithPath: arguments[2]))
    default:
        FileHandle.standardError.write(
            Data(
                "usage: DAOKitCrashWriter batches <dir> | writer <dir> <prefix> <count> | transactions <dir> | sqlite-batches <file> | sqlite-transactions <file> | sqlite-writer <file> <prefix> <count> | sqlite-readonly <file> <uid> | defaults <suite> <prefix> <count> | unique <files|sqlite> <path> <prefix> <rounds> | readonly <dir> <batch size> [<uid>] | trylock <dir>\n"
                    .utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("DAOKitCrashWriter: \(error)\n".utf8))
    exit(1)
}
