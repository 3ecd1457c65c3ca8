import DAOKit
import DAOKitSQLite
import DAOKitTestSupport
import Foundation
import Testing

/// Files that are not sound databases: each is a clear ``StorageError`` naming the file and
/// SQLite's result code, never a crash or silently wrong data.
@Suite("SQLite damaged files")
struct SQLiteDamagedFileTests {
    /// A database file holding `count` records, closed (so its log is checkpointed into it).
    private func populated(_ database: TemporaryDatabase, count: Int) throws {
        let context = try database.open()
        try context.save(
            (0..<count).map {
                FileCrashRecord(id: "r\($0)", generation: $0, payload: String(repeating: "x", count: 300))
            })
    }

    @Test func aFileThatIsNotADatabaseIsRefusedOnOpen() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try Data(String(repeating: "not a database. ", count: 512).utf8).write(to: database.file)
        let error = try #require(throws: StorageError.self) { try database.open() }
        #expect(error.kind == .corruptRecord("SQLite error 26 (SQLITE_NOTADB): file is not a database"))
        #expect(error.location == database.file.path)
        #expect((error.underlyingError as? SQLiteError)?.extendedResultCode == 26)
        #expect(error.description.contains(database.file.path))
    }

    /// SQLite would take an empty file for a new database: a store truncated to nothing would
    /// read as an empty store, every record silently missing (the damage fuzzer found it).
    @Test func aDatabaseFileTruncatedToNothingIsRefusedNotReadAsEmpty() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try populated(database, count: 3)
        try Data().write(to: database.file)
        let error = try #require(throws: StorageError.self) { try database.open() }
        #expect(error.code == .corruptRecord)
        #expect(error.location == database.file.path)
        #expect((error.underlyingError as? SQLiteError)?.extendedResultCode == 26)
        #expect(error.description.contains("empty"))
    }

    @Test func aNewStoreIsNeverAnEmptyFile() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        _ = try database.open()
        let size = try FileManager.default.attributesOfItem(atPath: database.file.path)[.size] as? NSNumber
        #expect((size?.intValue ?? 0) > 0)
        _ = try database.open()  // and it opens again
    }

    @Test func aTruncatedDatabaseIsACorruptionErrorNamingTheEntityAndFile() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try populated(database, count: 400)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: database.file.path)[.size] as? Int)
        let handle = try FileHandle(forWritingTo: database.file)
        try handle.truncate(atOffset: UInt64(size / 2))
        try handle.close()
        // SQLite notices on open (the schema page is gone) or on the first read of a lost page;
        // a read names the entity too.
        var opened = false
        let error = try #require(throws: StorageError.self) {
            let context = try database.open()
            opened = true
            _ = try context.fetchAll(FileCrashRecord.self)
        }
        let failure = try #require(error.underlyingError as? SQLiteError)
        #expect(failure.primaryResultCode == 11, "\(error)")  // SQLITE_CORRUPT
        #expect(error.entityName == (opened ? "CrashRecord" : nil))
        #expect(error.location == database.file.path)
        guard case .corruptRecord = error.kind else {
            Issue.record("expected corruptRecord, got \(error.kind)")
            return
        }
    }

    @Test func aDatabaseWithAnOverwrittenPageIsACorruptionError() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try populated(database, count: 400)
        // Garbage over the middle of the file: table pages, whose headers SQLite checks.
        let handle = try FileHandle(forUpdating: database.file)
        try handle.seek(toOffset: 8 * 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 3 * 4096))
        try handle.close()
        let error = try #require(throws: StorageError.self) {
            let context = try database.open()
            _ = try context.fetchAll(FileCrashRecord.self)
        }
        #expect((error.underlyingError as? SQLiteError)?.primaryResultCode == 11, "\(error)")
        #expect(error.description.contains(database.file.path))
    }

    @Test func anotherApplicationsDatabaseIsRefusedAsTheWrongFormat() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try sqliteShell(database.file, "CREATE TABLE people(name TEXT); INSERT INTO people VALUES ('ann');")
        let error = try #require(throws: StorageError.self) { try database.open() }
        #expect(error.kind == .wrongFormat("an SQLite database that is not a DAOKit store (application_id 0)"))
        // Nothing was changed in it.
        #expect(try String(contentsOf: database.file, encoding: .isoLatin1).contains("people"))
    }

    /// Runs `DAOKitCrashWriter sqlite-readonly` on the database as a user who may not write the
    /// file (nobody, when the tests run as root), with the directory's permissions set to
    /// `directoryMode`, and returns what it printed.
    private func readOnlyChild(_ database: TemporaryDatabase, directoryMode: Int) throws -> [String] {
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: database.file.path)
        try FileManager.default.setAttributes([.posixPermissions: directoryMode], ofItemAtPath: database.directory.path)
        defer {
            try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: database.directory.path)
        }
        let user = geteuid() == 0 ? "65534" : String(geteuid())  // root ignores permission bits
        let (status, lines, errors) = try FileChildProcess(arguments: ["sqlite-readonly", database.file.path, user])
            .finish()
        #expect(status == 0, "\(errors)")
        return lines
    }

    @Test func aReadOnlyDatabaseFileReadsAndRefusesWritesNamingTheCode() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try populated(database, count: 3)
        let lines = try readOnlyChild(database, directoryMode: 0o777)
        #expect(lines.first == "before r0=0,r1=1,r2=2", "\(lines)")
        let save = try #require(lines.first { $0.hasPrefix("save ") }, "\(lines)")
        #expect(
            save.hasPrefix("save failed CrashRecord \"new\": I/O failure (SQLite error 8 (SQLITE_READONLY)"), "\(save)")
        #expect(save.contains(database.file.path))
        #expect(lines.last == "after r0=0,r1=1,r2=2", "\(lines)")
    }

    @Test func aDatabaseInAReadOnlyDirectoryIsAClearErrorOnOpen() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try populated(database, count: 3)
        // WAL needs its shared-memory file beside the database; SQLite cannot create it here.
        let lines = try readOnlyChild(database, directoryMode: 0o555)
        #expect(lines.count == 1, "\(lines)")
        let line = try #require(lines.first)
        #expect(line.hasPrefix("open failed store: I/O failure (SQLite error 1544 (SQLITE_READONLY)"), "\(line)")
        #expect(line.contains(database.file.path))
    }
}
