import DAOKitInternals
import DAOKitStoreFormat
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A store opened by a process without write access, simulated through the I/O seam
/// (``FaultInjectingFileSystem/Mode/denyWrites(code:)``) so that it is checked even as root, for
/// permission denied and for a read-only mount alike.
@Suite("File read-only store")
struct FileReadOnlyStoreTests {
    static let oldNotes = [FileNote(id: "a", text: "old a"), FileNote(id: "b", text: "old b")]
    static let oldTags = [FileTag(id: "t", label: "tag")]
    static let codes = [EACCES, EPERM, EROFS]

    private static func makeOldStore(_ directory: FileTestDirectory) throws -> FileStorageContext {
        let context = try FileStorageContext(directory: directory.url)
        try context.save(oldNotes)
        try context.save(oldTags)
        return context
    }

    /// Opens the store as a process that may not change anything in it.
    private static func openWithoutWriteAccess(_ directory: FileTestDirectory, code: Int32) throws -> (
        FileStorageContext, FaultInjectingFileSystem
    ) {
        let fileSystem = FaultInjectingFileSystem()
        fileSystem.arm(.denyWrites(code: code))
        return (try FileStorageContext(directory: directory.url, fileSystem: fileSystem), fileSystem)
    }

    @Test("a store whose lock file cannot be opened for writing opens and reads", arguments: codes)
    func aStoreWithoutWriteAccessOpensAndReads(_ code: Int32) throws {
        try FileTestDirectory.with { directory in
            _ = try Self.makeOldStore(directory)
            let (context, fileSystem) = try Self.openWithoutWriteAccess(directory, code: code)
            // The writable open of .lock was refused, and the read-only one took its place.
            let lockOpens = fileSystem.operations.filter { $0 == "open .lock" }.count
            #expect(lockOpens == 2)
            #expect(context.lock.isReadOnly)
            #expect(try context.notes() == Self.oldNotes)
            #expect(try context.fetch(FileNote.self, id: "b") == Self.oldNotes[1])
            #expect(try context.count(FileNote.self) == 2)
            #expect(try context.fetchAll(FileTag.self) == Self.oldTags)
        }
    }

    @Test("writes without write access fail naming the path and change nothing", arguments: [1, 3], codes)
    func writesWithoutWriteAccessFailAndChangeNothing(_ batchSize: Int, _ code: Int32) throws {
        try FileTestDirectory.with { directory in
            _ = try Self.makeOldStore(directory)
            let before = try directory.snapshot()
            let (context, fileSystem) = try Self.openWithoutWriteAccess(directory, code: code)
            let message = String(cString: strerror(code))
            let batch = (0..<batchSize).map { FileNote(id: $0 == 0 ? "a" : "new\($0)", text: "new") }
            let writes: [(String, () throws -> Void)] = [
                ("save", { try context.save(batch) }),
                ("delete", { try context.delete(FileNote.self, ids: Array(batch.map(\.id).prefix(2)) + ["b"]) }),
                ("deleteAll", { try context.deleteAll(FileNote.self) }),
            ]
            for (name, write) in writes {
                let error = try #require(throws: StorageError.self, "\(name)") { try write() }
                guard error.code == .io, let detail = error.kind.detail else {
                    Issue.record("\(name): expected an I/O error, got \(error)")
                    continue
                }
                #expect(detail.hasSuffix("failed: \(message)"), "\(name): \(error)")
                #expect(error.location?.hasPrefix(directory.path + "/") == true, "\(name): \(error)")
                #expect(error.entityName == "FileNote")
                #expect(try context.notes() == Self.oldNotes, "\(name)")
            }
            #expect(try directory.snapshot() == before)
            // Once it may write, the same context writes: an exclusive flock works on the
            // read-only descriptor of .lock.
            fileSystem.arm(.passThrough)
            try context.save(batch)
            #expect(try FileStorageContext(directory: directory.url).fetch(FileNote.self, id: "a")?.text == "new")
        }
    }

    @Test func aStoreWithoutALockFileThatCannotBeCreatedIsAnErrorNamingIt() throws {
        try FileTestDirectory.with { directory in
            _ = try Self.makeOldStore(directory)
            try FileManager.default.removeItem(atPath: directory.path + "/.lock")
            let error = try #require(throws: StorageError.self) {
                _ = try Self.openWithoutWriteAccess(directory, code: EACCES)
            }
            #expect(error.kind == .io("open failed: Permission denied"))
            #expect(error.location == directory.path + "/.lock")
        }
    }

    @Test func leftoverTemporaryFilesAndTrashStayAndDoNotHinderReads() throws {
        try FileTestDirectory.with { directory in
            let context = try Self.makeOldStore(directory)
            let noteDirectory = context.fileURL(for: FileNote.self, id: "a").deletingLastPathComponent().path
            try Data("half a record".utf8).write(to: URL(fileURLWithPath: noteDirectory + "/.tmp-1234"))
            try FileManager.default.createDirectory(
                atPath: directory.path + "/.trash-99", withIntermediateDirectories: true)
            try Data("{}".utf8).write(to: URL(fileURLWithPath: directory.path + "/.trash-99/a.json"))
            let before = try directory.snapshot()
            let (readOnly, _) = try Self.openWithoutWriteAccess(directory, code: EACCES)
            #expect(try readOnly.notes() == Self.oldNotes)
            #expect(try readOnly.count(FileNote.self) == 2)
            #expect(try directory.snapshot() == before)
            _ = try FileStorageContext(directory: directory.url)
            #expect(!fileTreeNames(directory.path).contains { $0.contains(".tmp-") || $0.contains(".trash-") })
        }
    }

    @Test func aTornJournalIsIgnoredByReadsAndNotRetriedOnEveryRead() throws {
        try FileTestDirectory.with { directory in
            _ = try Self.makeOldStore(directory)
            // Torn while being written: its batch touched no record, so the records are current.
            let torn = Journal(
                directoryName: "^file^note", entries: [.init(fileName: "a.json", previousContents: Data("stale".utf8))]
            )
            .serialized().dropLast(3)
            try torn.write(to: URL(fileURLWithPath: directory.path + "/.journal"))
            let (context, fileSystem) = try Self.openWithoutWriteAccess(directory, code: EROFS)
            #expect(try context.notes() == Self.oldNotes)
            // The refused recovery is remembered: later reads try no write at all.
            fileSystem.arm(.denyWrites(code: EROFS))
            #expect(try context.fetch(FileNote.self, id: "a") == Self.oldNotes[0])
            #expect(try context.count(FileNote.self) == 2)
            #expect(fileSystem.failureCount == 0, "\(fileSystem.operations)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/.journal")) == torn)
        }
    }

    /// A batch on FileNote that rewrote `a` and inserted `c`, then died: the journal is complete,
    /// and the records, read as they are, would be a mix of the two states that parses cleanly.
    private static func leaveUnfinishedNoteBatch(_ directory: FileTestDirectory, _ context: FileStorageContext) throws {
        let a = context.fileURL(for: FileNote.self, id: "a")
        let oldA = try Data(contentsOf: a)
        try Journal(
            directoryName: "^file^note",
            entries: [
                .init(fileName: "a.json", previousContents: oldA), .init(fileName: "c.json", previousContents: nil),
            ]
        ).serialized().write(to: URL(fileURLWithPath: directory.path + "/.journal"))
        try Data(#"{"entity":{"id":"a","number":0,"text":"new a"},"formatVersion":1,"key":"a"}"#.utf8).write(to: a)
        try Data(#"{"entity":{"id":"c","number":0,"text":"new c"},"formatVersion":1,"key":"c"}"#.utf8).write(
            to: context.fileURL(for: FileNote.self, id: "c"))
    }

    @Test("an unfinished batch reads as the state before it, from the journal, without writing", arguments: codes)
    func anUnfinishedBatchReadsAsTheStateBeforeIt(_ code: Int32) throws {
        try FileTestDirectory.with { directory in
            try Self.leaveUnfinishedNoteBatch(directory, try Self.makeOldStore(directory))
            let before = try directory.snapshot()
            let (context, fileSystem) = try Self.openWithoutWriteAccess(directory, code: code)
            // `a` was rewritten and `c` created by the batch: the journal says what they held.
            #expect(try context.notes() == Self.oldNotes)
            #expect(try context.fetch(FileNote.self, id: "a") == Self.oldNotes[0])
            #expect(try context.fetch(FileNote.self, id: "c") == nil)
            #expect(try context.count(FileNote.self) == 2)
            #expect(try context.fetchReadable(FileNote.self).values.sorted { $0.id < $1.id } == Self.oldNotes)
            #expect(try context.storedKeys(FileNote.self).sorted() == ["a", "b"])
            #expect(try context.fetchAll(FileTag.self) == Self.oldTags)
            #expect(throws: StorageError.self) { try context.save([FileTag(id: "u", label: "new")]) }
            #expect(try directory.snapshot() == before)
            // A write, once allowed, rolls the batch back first; then every record reads.
            fileSystem.arm(.passThrough)
            try context.save([FileTag(id: "u", label: "new")])
            #expect(try context.notes() == Self.oldNotes)
        }
    }

    @Test func threadsReadingUnderOneSharedLockAllReadAroundTheUnfinishedBatch() throws {
        try FileTestDirectory.with { directory in
            try Self.leaveUnfinishedNoteBatch(directory, try Self.makeOldStore(directory))
            let (context, _) = try Self.openWithoutWriteAccess(directory, code: EACCES)
            // Only the thread that takes the shared flock reads the journal; the others join it
            // and must get its answer, whichever entity type it was reading.
            let outcomes = Locked<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 200) { index in
                let outcome: String
                if index % 2 == 0 {
                    outcome =
                        (try? context.fetchAll(FileNote.self)).map {
                            "notes \($0.sorted { $0.id < $1.id } == Self.oldNotes)"
                        } ?? "notes refused"
                } else {
                    outcome = (try? context.fetchAll(FileTag.self)).map { "tags \($0.count)" } ?? "tags refused"
                }
                outcomes.withLock { $0.append(outcome) }
            }
            #expect(Set(outcomes.withLock { $0 }) == ["notes true", "tags 1"])
        }
    }
}
