import DAOKitStoreFormat
import DAOKitTestSupport
import Foundation
import Synchronization
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

/// What the file store's transactions add to the promises every transactional context keeps
/// (DAOKitTests' TransactionTests checks those on it): two entity types commit under one journal,
/// so a failure or a crash at any step of the commit leaves both as they were, and a reader never
/// needs the transaction's writer to recover them.
@Suite("File transactions commit every type together or none, across a full disk and a crash")
struct FileTransactionAtomicityTests {
    static let oldNotes = [FileNote(id: "n0", text: "old"), FileNote(id: "n1", text: "old")]
    static let oldTags = [FileTag(id: "t", label: "old")]
    static let newNotes = [FileNote(id: "n0", text: "new"), FileNote(id: "n2", text: "added")]
    static let newTags = [FileTag(id: "t", label: "new"), FileTag(id: "u", label: "added")]

    /// The transaction every test runs: changes, adds and removes records of both types.
    static func run(on context: FileStorageContext) throws {
        try context.transaction { tx in
            try tx.save([FileNote(id: "n0", text: "new"), FileNote(id: "n2", text: "added")])
            try tx.delete(FileNote.self, ids: ["n1"])
            try tx.save([FileTag(id: "t", label: "new"), FileTag(id: "u", label: "added")])
        }
    }

    static func state(_ context: FileStorageContext) throws -> (notes: [FileNote], tags: [FileTag]) {
        (try context.notes(), try context.fetchAll(FileTag.self).sorted { $0.id < $1.id })
    }

    static func isOld(_ state: (notes: [FileNote], tags: [FileTag])) -> Bool {
        state.notes == oldNotes && state.tags == oldTags
    }

    static func isNew(_ state: (notes: [FileNote], tags: [FileTag])) -> Bool {
        state.notes == newNotes && state.tags == newTags
    }

    static func journalLength(_ directory: FileTestDirectory) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: directory.path + "/.journal")[.size] as? Int) ?? 0
    }

    @Test func twoTypesCommitTogetherAndStayAfterReopening() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save(Self.oldNotes)
            try context.save(Self.oldTags)
            try Self.run(on: context)
            #expect(Self.isNew(try Self.state(context)))
            #expect(Self.isNew(try Self.state(try FileStorageContext(directory: directory.url))))
            #expect(try Self.journalLength(directory) == 0)
        }
    }

    @Test func anErrorInTheBodyLeavesBothTypesAsBefore() throws {
        struct Refused: Error {}
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save(Self.oldNotes)
            try context.save(Self.oldTags)
            #expect(throws: Refused.self) {
                try context.transaction { tx in
                    try tx.save([FileNote(id: "n0", text: "new")])
                    try tx.save([FileTag(id: "t", label: "new")])
                    #expect(try tx.fetch(FileTag.self, id: "t")?.label == "new")
                    throw Refused()
                }
            }
            #expect(Self.isOld(try Self.state(context)))
            #expect(Self.isOld(try Self.state(try FileStorageContext(directory: directory.url))))
        }
    }

    /// The number of file-system calls the transaction makes with room enough.
    static func callsOfACommit() throws -> Int {
        try FileTestDirectory.with { directory in
            let fileSystem = FaultInjectingFileSystem()
            let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            try context.save(Self.oldNotes)
            try context.save(Self.oldTags)
            fileSystem.arm(.passThrough)
            try Self.run(on: context)
            #expect(Self.isNew(try Self.state(context)))
            return fileSystem.callCount
        }
    }

    @Test func aFullDiskAtAnyStepLeavesBothTypesAsBeforeAlsoAfterReopening() throws {
        let calls = try Self.callsOfACommit()
        var failures = 0
        var journalsLeft = 0
        for step in 1...(calls + 1) {
            try FileTestDirectory.with { directory in
                let fileSystem = FaultInjectingFileSystem()
                let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
                try context.save(Self.oldNotes)
                try context.save(Self.oldTags)
                fileSystem.arm(.fullDisk(from: step))
                var failed = false
                do {
                    try Self.run(on: context)
                } catch let error as StorageError {
                    #expect(error.description.contains(String(cString: strerror(ENOSPC))), "step \(step): \(error)")
                    failed = true
                }
                if failed { failures += 1 }
                if try Self.journalLength(directory) > 0 { journalsLeft += 1 }
                // Still full: readers read around a journal the rollback could not finish.
                let seen = try Self.state(context)
                #expect(failed ? Self.isOld(seen) : Self.isNew(seen), "step \(step), same context: \(seen)")
                let stillFull = FaultInjectingFileSystem()
                stillFull.arm(.fullDisk(from: 1))
                let whileFull = try Self.state(try FileStorageContext(directory: directory.url, fileSystem: stillFull))
                #expect(failed ? Self.isOld(whileFull) : Self.isNew(whileFull), "step \(step), opened while full")
                fileSystem.arm(.passThrough)
                let reopened = try Self.state(try FileStorageContext(directory: directory.url))
                #expect(failed ? Self.isOld(reopened) : Self.isNew(reopened), "step \(step), reopened: \(reopened)")
                #expect(try Self.journalLength(directory) == 0, "step \(step): the journal stayed after reopening")
            }
        }
        #expect(failures > 1, "the disk filled at no step of the commit")
        #expect(journalsLeft > 0, "no step left the two types' journal for the next open to roll back")
    }

    /// A crash (every call from one on fails and changes nothing, as if the process died there)
    /// at each step of the commit: reopening finds both types as before, or both as after; a
    /// journal the crash left names both entity directories and is rolled back whole.
    @Test func aCrashAtAnyStepRecoversBothTypesToBeforeOrAfter() throws {
        let calls = try Self.callsOfACommit()
        var journalsOfBothTypes = 0
        for step in 0...calls {
            try FileTestDirectory.with { directory in
                let fileSystem = FaultInjectingFileSystem()
                let crashed = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
                try crashed.save(Self.oldNotes)
                try crashed.save(Self.oldTags)
                fileSystem.arm(.crash(after: step))
                let finished = (try? Self.run(on: crashed)) != nil && fileSystem.failureCount == 0
                fileSystem.arm(.passThrough)
                if case .bytes(let data) = try POSIXFileSystem().readContents(of: directory.path + "/.journal"),
                    let journal = Journal(serialized: data)
                {
                    #expect(journal.directoryNames.count == 2, "step \(step): \(journal.directoryNames)")
                    journalsOfBothTypes += 1
                }
                let reopened = try Self.state(try FileStorageContext(directory: directory.url))
                if finished {
                    #expect(Self.isNew(reopened), "step \(step)")
                } else {
                    #expect(Self.isOld(reopened) || Self.isNew(reopened), "crash after call \(step): \(reopened)")
                }
                #expect(try Self.journalLength(directory) == 0, "step \(step)")
            }
        }
        #expect(journalsOfBothTypes > 0, "no crash left a journal of the transaction behind")
    }

    /// A journal of two types, left as a crash leaves it after some records were rewritten: the
    /// next open puts both types back.
    @Test func aJournalOfTwoTypesLeftByACrashRollsBothBack() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save(Self.oldNotes)
            try context.save(Self.oldTags)
            let noteFile = context.fileURL(for: FileNote.self, id: "n0")
            let tagFile = context.fileURL(for: FileTag.self, id: "t")
            let addedFile = context.fileURL(for: FileTag.self, id: "u")
            let journal = Journal(
                directoryName: noteFile.deletingLastPathComponent().lastPathComponent,
                entries: [
                    .init(fileName: noteFile.lastPathComponent, previousContents: try Data(contentsOf: noteFile)),
                    .init(
                        fileName: tagFile.lastPathComponent, previousContents: try Data(contentsOf: tagFile),
                        directoryName: tagFile.deletingLastPathComponent().lastPathComponent),
                    .init(
                        fileName: addedFile.lastPathComponent, previousContents: nil,
                        directoryName: addedFile.deletingLastPathComponent().lastPathComponent),
                ])
            try journal.serialized().write(to: directory.url.appendingPathComponent(".journal"))
            // What the transaction had written when it died: a torn note, the new tag, an added one.
            try Data("{\"torn".utf8).write(to: noteFile)
            try context.codec.encode(
                FileTag(id: "t", label: "new"), key: "t", versioning: try EntityVersioning.of(FileTag.self)
            ).write(to: tagFile)
            try Data("{}".utf8).write(to: addedFile)
            #expect(Self.isOld(try Self.state(try FileStorageContext(directory: directory.url))))
            #expect(!FileManager.default.fileExists(atPath: addedFile.path))
            #expect(try Self.journalLength(directory) == 0)
        }
    }
}

/// The file store's isolation is optimistic and spans instances and processes: the commit fails
/// with `transactionConflict`, writing nothing, when another writer changed a type the transaction
/// touched; a type it did not touch may change freely.
@Suite("File transactions conflict when another instance changed what they touched")
struct FileTransactionConflictTests {
    @Test func aChangeBySecondInstanceToATypeReadIsAConflictAndNothingIsWritten() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            let other = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "n", text: "old", number: 1)])
            let error = try #require(throws: StorageError.self) {
                try context.transaction { tx in
                    let number = try tx.fetch(FileNote.self, id: "n")?.number ?? 0
                    try other.save([FileNote(id: "n", text: "other", number: 5)])
                    try tx.save([FileNote(id: "n", text: "mine", number: number + 1)])
                    try tx.save([FileTag(id: "t", label: "mine")])
                }
            }
            #expect(error.code == .transactionConflict)
            #expect(error.entityName == FileNote.entityName)
            #expect(try context.fetch(FileNote.self, id: "n") == FileNote(id: "n", text: "other", number: 5))
            #expect(try context.count(FileTag.self) == 0)
        }
    }

    @Test func aChangeToATypeNotTouchedIsNoConflict() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            let other = try FileStorageContext(directory: directory.url)
            try context.transaction { tx in
                try tx.save([FileNote(id: "n", text: "mine")])
                try other.save([FileTag(id: "t", label: "other")])
            }
            #expect(try context.fetch(FileNote.self, id: "n")?.text == "mine")
            #expect(try context.fetch(FileTag.self, id: "t")?.label == "other")
        }
    }

    @Test func aTransactionThatReadOnlyIsCheckedToo() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "n", text: "old")])
            let error = try #require(throws: StorageError.self) {
                try context.transaction { tx in
                    _ = try tx.fetchAll(FileNote.self)
                    try FileStorageContext(directory: directory.url).delete(FileNote.self, ids: ["n"])
                }
            }
            #expect(error.code == .transactionConflict)
        }
    }

    /// `BaseDao.update(id:)` through two instances on one directory, one thread each: every
    /// increment is kept.
    struct Counter: Codable, Identifiable, Equatable, Sendable {
        var id: String
        var value: Int
    }

    struct CounterEntity: Storable, Sendable {
        var id: String
        var value: Int
    }

    @Test func updateInPlaceThroughTwoInstancesKeepsEveryIncrement() throws {
        let increments = 100
        try FileTestDirectory.with { directory in
            let instances = try (0..<2).map { _ in try FileStorageContext(directory: directory.url) }
            try BaseDao<Counter, CounterEntity>(context: instances[0]).create(Counter(id: "c", value: 0))
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let counters = BaseDao<Counter, CounterEntity>(context: instances[index])
                do {
                    for _ in 0..<increments {
                        _ = try counters.update(id: "c", attempts: 10_000) { $0.value += 1 }
                    }
                } catch {
                    failures.withLock { $0.append(String(describing: error)) }
                }
            }
            #expect(failures.withLock { $0 } == [])
            #expect(
                try BaseDao<Counter, CounterEntity>(context: try FileStorageContext(directory: directory.url))
                    .read(id: "c")?.value == 2 * increments)
        }
    }
}

/// Reads inside a transaction answer from what it wrote over the store, queries included, and
/// what they read never reaches the query cache that serves readers outside.
@Suite("File transactions keep uncommitted writes out of the query cache")
struct FileTransactionQueryCacheTests {
    @Test func aQueryInsideSeesTheWritesAndOneOutsideNeverDoes() throws {
        struct Refused: Error {}
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "x", number: 1), FileNote(id: "b", text: "y", number: 2)])
            let query = StorageQuery(filter: .compare("text", .equal, .string("x")))
            #expect(try context.fetch(FileNote.self, matching: query).map(\.id) == ["a"])  // loads the cache
            #expect(throws: Refused.self) {
                try context.transaction { tx in
                    try tx.save([FileNote(id: "c", text: "x", number: 3)])
                    try tx.delete(FileNote.self, ids: ["a"])
                    #expect(try tx.fetch(FileNote.self, matching: query).map(\.id) == ["c"])
                    #expect(try tx.count(FileNote.self, matching: .compare("text", .equal, .string("x"))) == 1)
                    #expect(try tx.explain(query, counting: false, for: FileNote.self).scansEveryRecord)
                    #expect(try context.fetch(FileNote.self, matching: query).map(\.id) == ["a"])
                    throw Refused()
                }
            }
            #expect(try context.fetch(FileNote.self, matching: query).map(\.id) == ["a"])
            try context.transaction { tx in
                try tx.save([FileNote(id: "c", text: "x", number: 3)])
                try tx.deleteAll(FileTag.self)
            }
            #expect(try context.fetch(FileNote.self, matching: query).map(\.id).sorted() == ["a", "c"])
        }
    }

    @Test func deleteAllInsideHidesEveryRecordUntilItIsWrittenAgain() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "x"), FileNote(id: "b", text: "y")])
            try context.transaction { tx in
                try tx.deleteAll(FileNote.self)
                #expect(try tx.count(FileNote.self) == 0)
                #expect(try tx.fetch(FileNote.self, id: "a") == nil)
                try tx.save([FileNote(id: "b", text: "again")])
                #expect(try tx.fetchAll(FileNote.self) == [FileNote(id: "b", text: "again")])
                #expect(try tx.storedKeys(FileNote.self) == ["b"])
            }
            #expect(try context.notes() == [FileNote(id: "b", text: "again")])
        }
    }

    @Test func resetInsideATransactionIsUnsupportedAndChangesNothing() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "x")])
            let error = try #require(throws: StorageError.self) {
                try context.transaction { tx in try tx.reset() }
            }
            #expect(error.code == .unsupported)
            #expect(try context.count(FileNote.self) == 1)
        }
    }
}
