import CSQLite
import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKitSQLite

/// Version 1 of the entity these tests store: no `points`, `note` not yet renamed.
private struct RowV1: Storable, Equatable {
    static let entityName = "VersionedRow"
    var id: String
    var note: String
}

/// Version 3: `points` added at 2 (default 7), `note` renamed `remark` at 3; `points` indexed.
private struct RowV3: Storable, Equatable {
    static let entityName = "VersionedRow"
    static let indexes = [StorageIndex("points")]
    static let schema = EntitySchema(
        version: 3, steps: [2: [.added("points", default: 7)], 3: [.renamed("note", to: "remark")]])
    var id: String
    var remark: String
    var points: Int
}

/// Where an SQLite row keeps its entity version, and what queries do while older rows are stored.
@Suite("SQLite rows carry their entity version")
struct SQLiteEntityVersionTests {
    private static let pointsAreSeven = StorageQuery(filter: .compare("points", .equal, .int(7)))
    private static let remarkIsA = StorageQuery(filter: .compare("remark", .equal, .string("a")))

    /// Whether SQL answers `query` whole (its condition translated, nothing left to Swift).
    private func translates(_ query: StorageQuery, on context: SQLiteStorageContext) throws -> Bool {
        try #require(try context.translation(of: query, for: RowV3.self)).isExact
    }

    @Test func aChangedFieldIsLeftToSwiftWhileOlderRowsAreStoredAndTranslatedOnceNoneAre() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let context = try database.open()
        try context.save([RowV1(id: "old", note: "a")])
        try context.save([RowV3(id: "new", remark: "b", points: 7)])
        #expect(try !translates(Self.pointsAreSeven, on: context))
        #expect(try !translates(Self.remarkIsA, on: context))
        // An unchanged field still translates.
        #expect(try translates(StorageQuery(filter: .compare("id", .equal, .string("old"))), on: context))
        #expect(try context.fetch(RowV3.self, matching: Self.pointsAreSeven).map(\.id).sorted() == ["new", "old"])
        #expect(try context.count(RowV3.self, matching: Self.remarkIsA.filter!) == 1)
        // Rewritten at version 3, the rows hold every field as the entity reads it.
        try context.save(try context.fetchAll(RowV3.self))
        #expect(try translates(Self.pointsAreSeven, on: context))
        #expect(try translates(Self.remarkIsA, on: context))
        #expect(try context.fetch(RowV3.self, matching: Self.pointsAreSeven).map(\.id).sorted() == ["new", "old"])
    }

    @Test func learningTheOldestStoredVersionReadsNoRows() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let context = try database.open()
        try context.save((0..<500).map { RowV3(id: "r\($0)", remark: "x", points: $0 % 50) })
        let before = context.fullScanSteps
        #expect(try context.count(RowV3.self, matching: .compare("points", .equal, .int(7))) == 10)
        #expect(context.fullScanSteps == before, "a count served by the index scanned rows")
    }

    @Test func aChangedVersionBreaksTheRowsChecksum() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try database.open().save([RowV3(id: "a", remark: "r", points: 1)])
        try sqliteShell(database.file, "UPDATE VersionedRow SET daokit_version = 2 WHERE daokit_key = 'a'")
        let error = try #require(throws: StorageError.self) { try database.open().fetch(RowV3.self, id: "a") }
        #expect(error.code == .corruptRecord)
        #expect(error.key == "a")
    }

    @Test func aRowOfVersionOneCarriesNoVersionAndTheLayoutIsMarkedOnlyForVersionedRows() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let context = try database.open()
        try context.save([RowV1(id: "a", note: "n")])
        #expect(try userVersion(database) == 1)
        try context.save([RowV3(id: "b", remark: "r", points: 2)])
        #expect(try userVersion(database) == 2)
        // A layout newer than this code reads is refused.
        try sqliteShell(database.file, "PRAGMA user_version = 3")
        #expect { try database.open() } throws: { ($0 as? StorageError)?.code == .wrongFormat }
    }

    @Test func aTableOfAnEarlierReleaseGainsTheColumnsAndItsRowsAreVersionOne() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try database.open().save([RowV1(id: "a", note: "kept")])
        try sqliteShell(
            database.file,
            "ALTER TABLE VersionedRow DROP COLUMN daokit_readable_from; ALTER TABLE VersionedRow DROP COLUMN daokit_version"
        )
        let context = try database.open()
        #expect(try context.fetch(RowV3.self, id: "a") == RowV3(id: "a", remark: "kept", points: 7))
        #expect(try context.fetch(RowV3.self, matching: Self.pointsAreSeven).map(\.id) == ["a"])
        try context.save([RowV3(id: "b", remark: "new", points: 1)])
        #expect(try context.fetchAll(RowV3.self).sorted { $0.id < $1.id }.map(\.remark) == ["kept", "new"])
        #expect(try database.open().fetch(RowV1.self, id: "a") == RowV1(id: "a", note: "kept"))
    }

    private func userVersion(_ database: TemporaryDatabase) throws -> Int64 {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        try #require(sqlite3_open(database.file.path, &handle) == SQLITE_OK)
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        try #require(sqlite3_prepare_v2(handle, "PRAGMA user_version", -1, &statement, nil) == SQLITE_OK)
        try #require(sqlite3_step(statement) == SQLITE_ROW)
        return sqlite3_column_int64(statement, 0)
    }
}
