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

/// The writing end of the change log: a context keeps `.changes` open between writes, and every
/// write's line still lands in the file the path names, whatever replaced it in between.
@Suite("File change log")
struct FileChangeLogTests {
    /// The line a write of the note `id` appends.
    private func line(_ context: FileStorageContext, _ id: String) -> String {
        let record = context.fileURL(for: FileNote.self, id: id)
        return record.deletingLastPathComponent().lastPathComponent + "/" + record.lastPathComponent + "\n"
    }

    private func logText(_ directory: FileTestDirectory) throws -> String {
        try String(contentsOfFile: directory.path + "/" + FileStoreLayout.changeLogFileName, encoding: .utf8)
    }

    @Test func consecutiveWritesAppendTheirLinesInOrder() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            for id in ["a", "b", "a"] { try context.save([FileNote(id: id, text: "t")]) }
            #expect(try logText(directory) == line(context, "a") + line(context, "b") + line(context, "a"))
        }
    }

    @Test func aWriteAfterAnotherWriterRestartedTheLogAppendsToTheNewLog() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "before", text: "t")])
            // What a writer in another process does when the log is full: an empty file renamed over it.
            let path = directory.path + "/" + FileStoreLayout.changeLogFileName
            let fresh = path + FileStoreLayout.changeLogReplacementSuffix
            try Data().write(to: URL(fileURLWithPath: fresh))
            #expect(rename(fresh, path) == 0)
            try context.save([FileNote(id: "after", text: "t")])
            #expect(try logText(directory) == line(context, "after"))
        }
    }

    @Test func aWriteAfterTheLogWasRemovedCreatesItWithItsLine() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "before", text: "t")])
            try FileManager.default.removeItem(atPath: directory.path + "/" + FileStoreLayout.changeLogFileName)
            try context.save([FileNote(id: "after", text: "t")])
            #expect(try logText(directory) == line(context, "after"))
        }
    }

    @Test func aFailedAppendWritesNothingAndTheNextWriteAppendsAfterWhatWasThere() throws {
        try FileTestDirectory.with { directory in
            let fileSystem = FaultInjectingFileSystem()
            let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            try context.save([FileNote(id: "first", text: "t")])
            fileSystem.arm(.passThrough)
            try context.save([FileNote(id: "probe", text: "t")])
            let append = try #require(
                fileSystem.operations.firstIndex(of: "write .changes"), "\(fileSystem.operations)")
            fileSystem.arm(.fail(operation: append + 1, code: ENOSPC))
            let error = try #require(throws: StorageError.self) {
                try context.save([FileNote(id: "refused", text: "t")])
            }
            #expect(error.location?.hasSuffix("/.changes") == true, "\(error)")
            #expect(try context.fetch(FileNote.self, id: "refused") == nil)
            fileSystem.arm(.passThrough)
            try context.save([FileNote(id: "last", text: "t")])
            #expect(try logText(directory) == line(context, "first") + line(context, "probe") + line(context, "last"))
        }
    }

    @Test func twoContextsAppendingInTurnKeepEveryLine() throws {
        try FileTestDirectory.with { directory in
            let one = try FileStorageContext(directory: directory.url)
            let two = try FileStorageContext(directory: directory.url)
            try one.save([FileNote(id: "1", text: "t")])
            try two.save([FileNote(id: "2", text: "t")])
            try one.save([FileNote(id: "3", text: "t")])
            #expect(try logText(directory) == line(one, "1") + line(one, "2") + line(one, "3"))
        }
    }
}
