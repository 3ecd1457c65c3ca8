import DAOKit
import DAOKitSQLite
import DAOKitTestSupport
import Foundation
import Testing

/// `SQLiteStorageContext(file:)` creates the folders its file is to be in, as
/// `FileStorageContext(directory:)` creates its directory, and names the folder it cannot create.
@Suite("SQLite database folder")
struct SQLiteDatabaseFolderTests {
    private struct FolderNote: Storable, Equatable {
        var id: String
    }

    @Test func aDatabaseInFoldersThatDoNotExistYetCreatesThem() throws {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        // As Application Support on a fresh install: neither it nor the app's folder in it exist.
        let file = directory.url.appendingPathComponent("Application Support/store/messages.sqlite")
        let context = try SQLiteStorageContext(file: file)
        try context.save([FolderNote(id: "a")])
        #expect(try context.fetchAll(FolderNote.self) == [FolderNote(id: "a")])
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test func aFolderThatCannotBeCreatedIsAnIOErrorNamingIt() throws {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let blocker = directory.url.appendingPathComponent("blocker")
        try Data("a file where a folder is to be".utf8).write(to: blocker)
        let file = blocker.appendingPathComponent("store/messages.sqlite")
        let error = try #require(throws: StorageError.self) { try SQLiteStorageContext(file: file) }
        #expect(error.kind.code == .io, "\(error)")
        #expect(error.location == file.path)
        #expect(
            error.description.contains("cannot create the folder \(blocker.appendingPathComponent("store").path)"),
            "\(error)")
    }
}
