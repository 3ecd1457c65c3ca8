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

/// A symbolic link anywhere inside the store — as a record, as an entity folder, as `.journal`,
/// as `.lock`, as a temporary file — is never followed: every entry point refuses it with an
/// error naming the link, or (where the store only removes its own leftovers) removes the link
/// itself, and the link's target outside the store is never read, written or removed.
@Suite("File symlink confinement")
struct FileSymlinkConfinementTests {
    /// A store holding notes a and b, and beside it a folder `<store>-outside` holding a copy of
    /// the notes' folder with different texts: following a link into it would "work", silently.
    private struct Setup {
        let directory: FileTestDirectory
        let context: FileStorageContext
        let entityFolder: String
        let outside: String

        init(_ directory: FileTestDirectory) throws {
            self.directory = directory
            context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "a"), FileNote(id: "b", text: "b")])
            entityFolder = context.entityDirectoryPath(FileNote.entityName)
            outside = directory.path + "-outside"
            let twin = try FileStorageContext(directory: URL(fileURLWithPath: outside))
            try twin.save([FileNote(id: "a", text: "outside a"), FileNote(id: "b", text: "outside b")])
        }

        var outsideFolder: String { outside + "/" + (entityFolder as NSString).lastPathComponent }

        /// Every file under the outside folder with its bytes: what must not change.
        func outsideState() throws -> [String: Data] {
            var state: [String: Data] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: outsideFolder) {
                state[name] = try Data(contentsOf: URL(fileURLWithPath: outsideFolder + "/" + name))
            }
            return state
        }

        func removeOutside() { try? FileManager.default.removeItem(atPath: outside) }

        /// Replaces `path` (a file or a folder) with a symbolic link to `target`.
        func link(_ path: String, to target: String) throws {
            try FileManager.default.removeItem(atPath: path)
            #expect(symlink(target, path) == 0)
        }
    }

    /// Every entry point that reads or writes the notes.
    enum EntryPoint: String, CaseIterable, CustomTestStringConvertible {
        case fetch, fetchAll, count, fetchReadable, storedKeys, singleSave, batchSave, insert, delete, deleteAll
        var testDescription: String { rawValue }

        func run(_ context: FileStorageContext) throws {
            switch self {
            case .fetch: _ = try context.fetch(FileNote.self, id: "a")
            case .fetchAll: _ = try context.fetchAll(FileNote.self)
            case .count: _ = try context.count(FileNote.self)
            case .fetchReadable: _ = try context.fetchReadable(FileNote.self)
            case .storedKeys: _ = try context.storedKeys(FileNote.self)
            case .singleSave: try context.save([FileNote(id: "a", text: "new a")])
            case .batchSave: try context.save([FileNote(id: "a", text: "new a"), FileNote(id: "c", text: "c")])
            case .insert: try context.save([FileNote(id: "c", text: "c")], mode: .insert)
            case .delete: try context.delete(FileNote.self, ids: ["a", "b"])
            case .deleteAll: try context.deleteAll(FileNote.self)
            }
        }
    }

    @Test(
        "a symlinked entity folder is refused by every entry point, naming the folder", arguments: EntryPoint.allCases)
    func aSymlinkedEntityFolderIsRefusedNamingIt(_ entryPoint: EntryPoint) throws {
        try FileTestDirectory.with { directory in
            let setup = try Setup(directory)
            defer { setup.removeOutside() }
            try setup.link(setup.entityFolder, to: setup.outsideFolder)
            let before = try setup.outsideState()

            let error = try #require(throws: StorageError.self) { try entryPoint.run(setup.context) }
            #expect(error.code == .corruptRecord, "\(error)")
            #expect(error.location == setup.entityFolder, "\(error)")
            #expect(error.description.contains("never follows"), "\(error)")
            #expect(try setup.outsideState() == before)
            // The link is still there: nothing removed or replaced it.
            #expect(
                try FileManager.default.destinationOfSymbolicLink(atPath: setup.entityFolder) == setup.outsideFolder)
        }
    }

    @Test(
        "a symlinked record is refused by every entry point that opens it, naming it",
        arguments: [EntryPoint.fetch, .fetchAll, .singleSave, .batchSave, .delete])
    func aSymlinkedRecordIsRefusedNamingIt(_ entryPoint: EntryPoint) throws {
        try FileTestDirectory.with { directory in
            let setup = try Setup(directory)
            defer { setup.removeOutside() }
            let record = setup.context.fileURL(for: FileNote.self, id: "a").path
            try setup.link(record, to: setup.outsideFolder + "/a.json")
            let before = try setup.outsideState()

            let error = try #require(throws: StorageError.self) { try entryPoint.run(setup.context) }
            #expect(error.kind == .corruptRecord("not a regular file"), "\(error)")
            #expect(error.location == record, "\(error)")
            #expect(try setup.outsideState() == before)
        }
    }

    @Test func readsThatNeverOpenARecordCountASymlinkedOneWithoutFollowingIt() throws {
        try FileTestDirectory.with { directory in
            let setup = try Setup(directory)
            defer { setup.removeOutside() }
            try setup.link(setup.context.fileURL(for: FileNote.self, id: "a").path, to: setup.outsideFolder + "/a.json")
            #expect(try setup.context.count(FileNote.self) == 2)
            #expect(try setup.context.storedKeys(FileNote.self).sorted() == ["a", "b"])
            let readable = try setup.context.fetchReadable(FileNote.self)
            #expect(readable.values == [FileNote(id: "b", text: "b")])
            #expect(
                readable.failures.map(\.error.location) == [setup.context.fileURL(for: FileNote.self, id: "a").path])
        }
    }

    @Test func deleteAllRemovesASymlinkedRecordAndNotItsTarget() throws {
        try FileTestDirectory.with { directory in
            let setup = try Setup(directory)
            defer { setup.removeOutside() }
            try setup.link(setup.context.fileURL(for: FileNote.self, id: "a").path, to: setup.outsideFolder + "/a.json")
            let before = try setup.outsideState()
            try setup.context.deleteAll(FileNote.self)
            #expect(try setup.context.count(FileNote.self) == 0)
            #expect(try setup.outsideState() == before)
        }
    }

    @Test func recoveryRefusesToRollBackIntoASymlinkedEntityFolderNamingIt() throws {
        try FileTestDirectory.with { directory in
            let setup = try Setup(directory)
            defer { setup.removeOutside() }
            let oldA = try Data(contentsOf: setup.context.fileURL(for: FileNote.self, id: "a"))
            let folderName = (setup.entityFolder as NSString).lastPathComponent
            let journal = Journal(
                directoryName: folderName,
                entries: [
                    .init(fileName: "a.json", previousContents: oldA),
                    .init(fileName: "b.json", previousContents: nil),
                ])
            try journal.serialized().write(to: directory.url.appendingPathComponent(".journal"))
            try setup.link(setup.entityFolder, to: setup.outsideFolder)
            let before = try setup.outsideState()

            let error = try #require(throws: StorageError.self) { try FileStorageContext(directory: directory.url) }
            #expect(error.code == .corruptRecord, "\(error)")
            #expect(error.location == setup.entityFolder, "\(error)")
            #expect(try setup.outsideState() == before)
        }
    }

    @Test func aSymlinkedJournalIsRefusedWhenTheStoreIsOpened() throws {
        try FileTestDirectory.with { directory in
            let setup = try Setup(directory)
            defer { setup.removeOutside() }
            let target = setup.outsideFolder + "/a.json"
            try? FileManager.default.removeItem(atPath: directory.path + "/.journal")
            #expect(symlink(target, directory.path + "/.journal") == 0)
            let before = try setup.outsideState()

            let error = try #require(throws: StorageError.self) { try FileStorageContext(directory: directory.url) }
            #expect(error.kind == .io("open refused: not a regular file"), "\(error)")
            #expect(error.location == directory.path + "/.journal")
            #expect(try setup.outsideState() == before)
        }
    }

    @Test func aSymlinkedLockFileIsRefusedNamingIt() throws {
        try FileTestDirectory.with { directory in
            let setup = try Setup(directory)
            defer { setup.removeOutside() }
            let lockPath = directory.path + "/.lock"
            try setup.link(lockPath, to: setup.outside + "/.lock")

            let error = try #require(throws: StorageError.self) { try FileStorageContext(directory: directory.url) }
            #expect(error.kind == .io("open refused: not a regular file"), "\(error)")
            #expect(error.location == lockPath)
        }
    }

    @Test func aDanglingSymlinkAsTheLockFileCreatesNothingAtItsTarget() throws {
        try FileTestDirectory.with { directory in
            let setup = try Setup(directory)
            defer { setup.removeOutside() }
            let lockPath = directory.path + "/.lock"
            let target = setup.outside + "/created-through-the-link"
            try setup.link(lockPath, to: target)

            #expect(throws: StorageError.self) { try FileStorageContext(directory: directory.url) }
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    @Test func aSymlinkedTemporaryFileIsRemovedOnOpenAndItsTargetKept() throws {
        try FileTestDirectory.with { directory in
            let setup = try Setup(directory)
            defer { setup.removeOutside() }
            let temporary = setup.entityFolder + "/" + FileStoreLayout.temporaryFilePrefix + "0123abcd"
            #expect(symlink(setup.outsideFolder + "/a.json", temporary) == 0)
            let before = try setup.outsideState()

            let reopened = try FileStorageContext(directory: directory.url)
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: temporary)) == nil)
            #expect(try setup.outsideState() == before)
            #expect(try reopened.fetchAll(FileNote.self).count == 2)
        }
    }

    @Test func theStoresOwnDirectoryMayBeASymlinkChosenByTheUser() throws {
        try FileTestDirectory.with { directory in
            let setup = try Setup(directory)
            defer { setup.removeOutside() }
            let alias = directory.path + "-alias"
            #expect(symlink(directory.path, alias) == 0)
            defer { _ = unlink(alias) }
            let context = try FileStorageContext(directory: URL(fileURLWithPath: alias))
            #expect(try context.fetch(FileNote.self, id: "a")?.text == "a")
            try context.save([FileNote(id: "c", text: "c"), FileNote(id: "d", text: "d")])
            #expect(try setup.context.count(FileNote.self) == 4)
        }
    }
}
