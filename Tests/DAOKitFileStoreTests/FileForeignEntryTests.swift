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

/// Things that are not regular files where a record or the journal should be — a symbolic link, a
/// FIFO — are reported, never followed, never written through, and never block.
@Suite("File foreign entries")
struct FileForeignEntryTests {
    /// A store with notes a and b, and a file outside the store holding `outsideText`.
    private func makeStore(_ directory: FileTestDirectory) throws -> (context: FileStorageContext, outside: String) {
        let context = try FileStorageContext(directory: directory.url)
        try context.save([FileNote(id: "a", text: "a"), FileNote(id: "b", text: "b")])
        let outside = directory.path + "-outside"
        try Data("outside, precious".utf8).write(to: URL(fileURLWithPath: outside))
        return (context, outside)
    }

    private func removeOutside(_ outside: String) { _ = unlink(outside) }

    /// Puts a symbolic link to `outside` where the record file `path` was.
    private func replaceWithSymlink(_ path: String, to outside: String) {
        _ = unlink(path)
        #expect(symlink(outside, path) == 0)
    }

    private func outsideText(_ outside: String) throws -> String {
        String(decoding: try Data(contentsOf: URL(fileURLWithPath: outside)), as: UTF8.self)
    }

    private func expectNotRegular(_ error: StorageError, at path: String) {
        #expect(error.kind == .corruptRecord("not a regular file"), "\(error)")
        #expect(error.location == path, "\(error)")
    }

    @Test func aSymlinkedRecordIsReportedByFetchAndFetchAllWhileTheOthersRead() throws {
        try FileTestDirectory.with { directory in
            let (context, outside) = try makeStore(directory)
            defer { removeOutside(outside) }
            let path = context.fileURL(for: FileNote.self, id: "a").path
            replaceWithSymlink(path, to: outside)

            let fetchError = try #require(throws: StorageError.self) { try context.fetch(FileNote.self, id: "a") }
            expectNotRegular(fetchError, at: path)
            #expect(fetchError.key == "a")
            let allError = try #require(throws: StorageError.self) { try context.fetchAll(FileNote.self) }
            expectNotRegular(allError, at: path)
            #expect(try context.fetch(FileNote.self, id: "b")?.text == "b")
        }
    }

    @Test func aBatchOverASymlinkedRecordNeverWritesTheLinksTarget() throws {
        try FileTestDirectory.with { directory in
            let (context, outside) = try makeStore(directory)
            defer { removeOutside(outside) }
            let path = context.fileURL(for: FileNote.self, id: "a").path
            replaceWithSymlink(path, to: outside)

            let error = try #require(throws: StorageError.self) {
                try context.save([FileNote(id: "a", text: "new a"), FileNote(id: "b", text: "new b")])
            }
            expectNotRegular(error, at: path)
            #expect(try outsideText(outside) == "outside, precious")
            #expect(try context.fetch(FileNote.self, id: "b")?.text == "b", "all or nothing")
        }
    }

    @Test func rewritingInPlaceRefusesASymlinkEvenWhenNothingCheckedBefore() throws {
        // The batch reads each record before rewriting it, which already refuses a link; the
        // in-place rewrite refuses one on its own too (another process may plant it in between,
        // and recovery rewrites without reading first).
        try FileTestDirectory.with { directory in
            let (context, outside) = try makeStore(directory)
            defer { removeOutside(outside) }
            let path = context.fileURL(for: FileNote.self, id: "a").path
            replaceWithSymlink(path, to: outside)
            let files = POSIXFileSystem()
            let folderPath = (path as NSString).deletingLastPathComponent
            let folder = try files.open(folderPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0)
            defer { try? files.close(folder, path: folderPath) }
            let error = try #require(throws: FileSystemError.self) {
                try files.overwriteFile(
                    (path as NSString).lastPathComponent, in: folder, path: path, Data("x".utf8), previousLength: nil)
            }
            #expect(error.isNotRegularFile)
            #expect(try outsideText(outside) == "outside, precious")
        }
    }

    @Test func rollingBackOverASymlinkedRecordLeavesTheTargetAndReportsTheRecord() throws {
        try FileTestDirectory.with { directory in
            let (context, outside) = try makeStore(directory)
            defer { removeOutside(outside) }
            let path = context.fileURL(for: FileNote.self, id: "a").path
            let oldA = try Data(contentsOf: URL(fileURLWithPath: path))
            let journal = Journal(
                directoryName: "^file^note", entries: [.init(fileName: "a.json", previousContents: oldA)])
            try journal.serialized().write(to: directory.url.appendingPathComponent(".journal"))
            replaceWithSymlink(path, to: outside)

            let error = try #require(throws: StorageError.self) { try FileStorageContext(directory: directory.url) }
            expectNotRegular(error, at: path)
            #expect(try outsideText(outside) == "outside, precious")
        }
    }

    @Test func aSymlinkedJournalIsNeitherWrittenNorTruncated() throws {
        try FileTestDirectory.with { directory in
            let (context, outside) = try makeStore(directory)
            defer { removeOutside(outside) }
            let journalPath = directory.path + "/.journal"
            _ = unlink(journalPath)
            #expect(symlink(outside, journalPath) == 0)

            let error = try #require(throws: StorageError.self) {
                try context.save([FileNote(id: "a", text: "new a"), FileNote(id: "c", text: "c")])
            }
            #expect(error.kind == .io("open refused: not a regular file"), "\(error)")
            #expect(error.location == journalPath)
            #expect(try outsideText(outside) == "outside, precious")
            // Readers too must not trust a journal that is not the store's own file.
            let readError = try #require(throws: StorageError.self) { try context.fetch(FileNote.self, id: "a") }
            #expect(readError.location == journalPath)
            let record = try Data(contentsOf: context.fileURL(for: FileNote.self, id: "a"))
            #expect(String(decoding: record, as: UTF8.self).contains(#""text":"a""#))
        }
    }

    @Test func aFIFOInPlaceOfARecordIsReportedWithoutBlockingReadersOrWriters() throws {
        try FileTestDirectory.with { directory in
            let (context, outside) = try makeStore(directory)
            defer { removeOutside(outside) }
            let path = context.fileURL(for: FileNote.self, id: "a").path
            _ = unlink(path)
            #expect(mkfifo(path, 0o644) == 0)

            let fetchError = try #require(throws: StorageError.self) { try context.fetch(FileNote.self, id: "a") }
            expectNotRegular(fetchError, at: path)
            let allError = try #require(throws: StorageError.self) { try context.fetchAll(FileNote.self) }
            expectNotRegular(allError, at: path)
            #expect(try context.fetch(FileNote.self, id: "b")?.text == "b")
            let saveError = try #require(throws: StorageError.self) {
                try context.save([FileNote(id: "a", text: "new a"), FileNote(id: "b", text: "new b")])
            }
            expectNotRegular(saveError, at: path)
            // Writers are not blocked: a write elsewhere goes through.
            try context.save([FileNote(id: "c", text: "c"), FileNote(id: "d", text: "d")])
            #expect(try context.count(FileNote.self) == 4)
        }
    }
}
