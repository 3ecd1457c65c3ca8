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

/// Readers learn whether a crashed batch left a journal through a descriptor of `.journal` they
/// keep open. Whatever happens to the file by its path — rewritten in place as DAOKit does,
/// replaced by a rename, removed and created again, created after the store was opened — the next
/// read must see a journal left there, and roll its batch back before returning any record.
@Suite("File journal probe")
struct FileJournalProbeTests {
    /// A store whose `.journal` exists (a batch ran) and whose reader already holds it open, and
    /// the bytes of `a` before a batch that the caller then pretends died half way.
    private func storeWithKeptJournal(_ directory: FileTestDirectory) throws -> (FileStorageContext, oldA: Data) {
        let context = try FileStorageContext(directory: directory.url)
        try context.save([FileNote(id: "a", text: "old"), FileNote(id: "b", text: "b")])
        #expect(try context.fetch(FileNote.self, id: "a")?.text == "old")
        let oldA = try Data(contentsOf: context.fileURL(for: FileNote.self, id: "a"))
        return (context, oldA)
    }

    /// What a writer that died after rewriting `a` in a batch leaves: `a` new, the journal holding its old bytes.
    private func halfAppliedBatch(_ context: FileStorageContext, oldA: Data) throws -> Data {
        try Data(#"{"entity":{"id":"a","number":0,"text":"half done"},"formatVersion":1,"key":"a"}"#.utf8)
            .write(to: context.fileURL(for: FileNote.self, id: "a"))
        return Journal(directoryName: "^file^note", entries: [.init(fileName: "a.json", previousContents: oldA)])
            .serialized()
    }

    private func journalURL(_ directory: FileTestDirectory) -> URL {
        URL(fileURLWithPath: directory.path + "/.journal")
    }

    @Test func aJournalWrittenInPlaceIsRolledBackBeforeTheNextRead() throws {
        try FileTestDirectory.with { directory in
            let (context, oldA) = try storeWithKeptJournal(directory)
            let journal = try halfAppliedBatch(context, oldA: oldA)
            // In place, as a writer in another process writes it: the same file the reader holds.
            let handle = try FileHandle(forWritingTo: journalURL(directory))
            try handle.write(contentsOf: journal)
            try handle.close()
            #expect(try context.fetch(FileNote.self, id: "a")?.text == "old")
            #expect(try Data(contentsOf: journalURL(directory)).isEmpty)
        }
    }

    @Test func aJournalRenamedOverTheOneTheReaderHoldsIsRolledBackBeforeTheNextRead() throws {
        try FileTestDirectory.with { directory in
            let (context, oldA) = try storeWithKeptJournal(directory)
            try halfAppliedBatch(context, oldA: oldA).write(to: journalURL(directory), options: .atomic)
            #expect(try context.fetch(FileNote.self, id: "a")?.text == "old")
            #expect(try context.notes().map(\.text) == ["old", "b"])
        }
    }

    @Test func aJournalRemovedAndCreatedAgainIsRolledBackBeforeTheNextRead() throws {
        try FileTestDirectory.with { directory in
            let (context, oldA) = try storeWithKeptJournal(directory)
            try FileManager.default.removeItem(at: journalURL(directory))
            #expect(try context.fetch(FileNote.self, id: "a")?.text == "old")
            try halfAppliedBatch(context, oldA: oldA).write(to: journalURL(directory))
            #expect(try context.fetch(FileNote.self, id: "a")?.text == "old")
        }
    }

    @Test func aJournalCreatedAfterTheStoreWasOpenedIsRolledBackBeforeTheNextRead() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            // Single writes never create the journal.
            try context.save([FileNote(id: "a", text: "old")])
            #expect(!FileManager.default.fileExists(atPath: journalURL(directory).path))
            #expect(try context.fetch(FileNote.self, id: "a")?.text == "old")
            let oldA = try Data(contentsOf: context.fileURL(for: FileNote.self, id: "a"))
            try halfAppliedBatch(context, oldA: oldA).write(to: journalURL(directory))
            #expect(try context.fetch(FileNote.self, id: "a")?.text == "old")
        }
    }

    @Test func aReadLooksAtTheKeptJournalWithOneFstatUnderTheSharedLock() throws {
        try FileTestDirectory.with { directory in
            let fileSystem = FaultInjectingFileSystem()
            let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            try context.save([FileNote(id: "a", text: "a"), FileNote(id: "b", text: "b")])
            _ = try context.fetch(FileNote.self, id: "a")
            fileSystem.arm(.passThrough)
            #expect(try context.fetch(FileNote.self, id: "b")?.text == "b")
            #expect(
                fileSystem.operations == [
                    "flock .lock", "fstat .journal", "open b.json", "fstat b.json", "read b.json", "close b.json",
                    "flock .lock",
                ])
        }
    }

    @Test func aJournalThatCannotBeExaminedFailsTheReadWithItsPath() throws {
        try FileTestDirectory.with { directory in
            let fileSystem = FaultInjectingFileSystem()
            let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            try context.save([FileNote(id: "a", text: "a"), FileNote(id: "b", text: "b")])
            _ = try context.fetch(FileNote.self, id: "a")
            // flock, then the fstat of the journal fails.
            fileSystem.arm(.fail(operation: 2, code: EIO))
            let error = try #require(throws: StorageError.self) { try context.fetch(FileNote.self, id: "a") }
            #expect(error.kind == .io("fstat failed: Input/output error"))
            #expect(error.location == directory.path + "/.journal")
            #expect(try context.fetch(FileNote.self, id: "a")?.text == "a")
        }
    }
}
