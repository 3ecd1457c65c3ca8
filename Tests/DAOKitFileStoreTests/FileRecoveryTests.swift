import DAOKitStoreFormat
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

/// Recovery on open, from states a crash can leave behind, built by hand.
@Suite("File recovery")
struct FileRecoveryTests {
    private func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func leftoverTemporaryFilesAndTrashAreRemovedOnOpen() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "kept", text: "k")])
            let noteDirectory = context.fileURL(for: FileNote.self, id: "kept").deletingLastPathComponent().path
            try write("half a record", to: noteDirectory + "/.tmp-1234")
            try FileManager.default.createDirectory(
                atPath: directory.path + "/.trash-99/inner", withIntermediateDirectories: true)
            try write("{}", to: directory.path + "/.trash-99/a.json")
            _ = try FileStorageContext(directory: directory.url)
            #expect(fileTreeNames(directory.path) == [".changes", ".lock", "^file^note", "^file^note/kept.json"])
        }
    }

    @Test func aCompleteJournalIsRolledBackOnOpen() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "old a"), FileNote(id: "b", text: "old b")])
            let a = context.fileURL(for: FileNote.self, id: "a")
            let b = context.fileURL(for: FileNote.self, id: "b")
            let oldA = try Data(contentsOf: a)
            let oldB = try Data(contentsOf: b)
            // A batch that rewrote a, half-wrote b, inserted c and deleted d, then died.
            let journal = Journal(
                directoryName: "^file^note",
                entries: [
                    .init(fileName: "a.json", previousContents: oldA),
                    .init(fileName: "b.json", previousContents: oldB),
                    .init(fileName: "c.json", previousContents: nil),
                    .init(
                        fileName: "d.json",
                        previousContents: Data(
                            #"{"entity":{"id":"d","number":0,"text":"old d"},"formatVersion":1,"key":"d"}"#.utf8)),
                ])
            try journal.serialized().write(to: URL(fileURLWithPath: directory.path + "/.journal"))
            try Data(#"{"entity":{"id":"a","number":0,"text":"new a"},"formatVersion":1,"key":"a"}"#.utf8).write(to: a)
            try Data(#"{"entity":{"id":"b","#.utf8).write(to: b)
            try Data(#"{"entity":{"id":"c","number":0,"text":"new c"},"formatVersion":1,"key":"c"}"#.utf8).write(
                to: context.fileURL(for: FileNote.self, id: "c"))

            let reopened = try FileStorageContext(directory: directory.url)
            #expect(
                try reopened.notes() == [
                    FileNote(id: "a", text: "old a"), FileNote(id: "b", text: "old b"),
                    FileNote(id: "d", text: "old d"),
                ])
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/.journal")).isEmpty)
        }
    }

    @Test func rollingBackTwiceGivesTheSameState() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "old a")])
            let oldA = try Data(contentsOf: context.fileURL(for: FileNote.self, id: "a"))
            let journal = Journal(
                directoryName: "^file^note",
                entries: [
                    .init(fileName: "a.json", previousContents: oldA),
                    .init(fileName: "new.json", previousContents: nil),
                ])
            try context.save([FileNote(id: "a", text: "new a"), FileNote(id: "new", text: "n")])
            try context.rollBack(journal)
            try context.rollBack(journal)
            #expect(try context.notes() == [FileNote(id: "a", text: "old a")])
        }
    }

    @Test func anIncompleteJournalIsDiscardedAndNoRecordIsTouched() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "current")])
            // Torn while being written: the records were not touched yet, so they are current.
            let torn = Journal(
                directoryName: "^file^note", entries: [.init(fileName: "a.json", previousContents: Data("stale".utf8))]
            )
            .serialized().dropLast(3)
            try torn.write(to: URL(fileURLWithPath: directory.path + "/.journal"))
            let reopened = try FileStorageContext(directory: directory.url)
            #expect(try reopened.notes() == [FileNote(id: "a", text: "current")])
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/.journal")).isEmpty)
        }
    }

    @Test func aJournalLeftByAnotherWriterIsRolledBackBeforeTheNextRead() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "old")])
            let oldA = try Data(contentsOf: context.fileURL(for: FileNote.self, id: "a"))
            try context.save([FileNote(id: "a", text: "half done")])
            // Appears while this context is open, as if another process had died mid-batch.
            try Journal(directoryName: "^file^note", entries: [.init(fileName: "a.json", previousContents: oldA)])
                .serialized().write(to: URL(fileURLWithPath: directory.path + "/.journal"))
            #expect(try context.fetch(FileNote.self, id: "a")?.text == "old")
            try Journal(directoryName: "^file^note", entries: [.init(fileName: "a.json", previousContents: nil)])
                .serialized().write(to: URL(fileURLWithPath: directory.path + "/.journal"))
            try context.save([FileNote(id: "b", text: "b")])
            #expect(try context.notes() == [FileNote(id: "b", text: "b")])
        }
    }

    @Test func aRecoveryThatCannotWriteFailsTheOpenAndTheNextOpenFinishesIt() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "old")])
            let oldA = try Data(contentsOf: context.fileURL(for: FileNote.self, id: "a"))
            try context.save([FileNote(id: "a", text: "half done")])
            try Journal(directoryName: "^file^note", entries: [.init(fileName: "a.json", previousContents: oldA)])
                .serialized().write(to: URL(fileURLWithPath: directory.path + "/.journal"))
            let fileSystem = FaultInjectingFileSystem()
            // mkdir, open .lock, flock, stat .journal, open/fstat/read/read/close .journal, then dies.
            fileSystem.arm(.crash(after: 9))
            let error = try #require(throws: StorageError.self) {
                _ = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            }
            guard error.code == .io, let detail = error.kind.detail else {
                Issue.record("expected an I/O error, got \(error)")
                return
            }
            #expect(detail.hasSuffix("failed: Input/output error"))
            #expect(error.location?.hasPrefix(directory.path) == true)
            #expect(try FileStorageContext(directory: directory.url).notes() == [FileNote(id: "a", text: "old")])
        }
    }
}
