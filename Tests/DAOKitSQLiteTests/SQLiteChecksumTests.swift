import DAOKit
@_spi(DAOKitBenchmarks) import DAOKitSQLite
import DAOKitTestSupport
import Foundation
import Testing

struct ChecksumSample: Storable, Equatable {
    static let entityName = "Sample"
    var id: String
    var text: String
    var count: Int
    var ratio: Double
    var raw: Data
}

/// Every row carries a checksum: a byte changed in the file — in a value, or in the key — is a
/// `corruptRecord` naming the row, never a changed value; rows of an earlier release (no
/// checksum) stay readable, and a rewrite adds one.
@Suite("SQLite row checksums")
struct SQLiteChecksumTests {
    static let samples = (0..<20).map {
        ChecksumSample(
            id: String(format: "key%03d", $0), text: "text-\($0)-marker", count: $0 * 1000, ratio: Double($0) / 3,
            raw: Data([UInt8($0), 7]))
    }

    /// A closed database in rollback-journal mode, so that every row is in the main file.
    private func populated() throws -> TemporaryDatabase {
        let database = try TemporaryDatabase()
        try database.open().save(Self.samples)
        try sqliteShell(database.file, "PRAGMA journal_mode = DELETE")
        return database
    }

    /// Replaces the only occurrence of `old` in the file with `new`, of the same length.
    private func patch(_ database: TemporaryDatabase, _ old: String, _ new: String) throws {
        var bytes = try Data(contentsOf: database.file)
        let range = try #require(bytes.range(of: Data(old.utf8)), "\(old) is not in the file")
        #expect(bytes[range.upperBound...].range(of: Data(old.utf8)) == nil, "\(old) is in the file twice")
        bytes.replaceSubrange(range, with: Data(new.utf8))
        try bytes.write(to: database.file)
    }

    @Test func aChangedValueIsACorruptRecordNamingTheRow() throws {
        let database = try populated()
        defer { database.remove() }
        try patch(database, "text-7-marker", "text-8-marker")
        let context = try database.open()
        let error = try #require(throws: StorageError.self) { try context.fetch(ChecksumSample.self, id: "key007") }
        #expect(error.kind.code == .corruptRecord, "\(error)")
        #expect(error.key == "key007")
        #expect(error.entityName == "Sample")
        #expect(error.location == database.file.path)
        let readable = try context.fetchReadable(ChecksumSample.self)
        #expect(readable.values.count == 19)
        #expect(readable.failures.map(\.storageKey) == ["key007"])
        #expect(readable.failures.first?.error.kind.code == .corruptRecord)
        #expect(throws: StorageError.self) { try context.fetchAll(ChecksumSample.self) }
        #expect(try context.fetch(ChecksumSample.self, id: "key006") == Self.samples[6])
    }

    @Test func aChangedKeyIsReportedNotSkipped() throws {
        let database = try populated()
        defer { database.remove() }
        // The row's own copy of the key (the table's), not the primary-key index's: the index
        // still leads `read(id:)` to the row, and a full read meets it under its new key.
        var bytes = try Data(contentsOf: database.file)
        let marker = Data("text-12-marker".utf8)
        let value = try #require(bytes.range(of: marker))
        // The record holds daokit_key, then the `id` field (the same text), then `text`.
        let field = try #require(bytes[..<value.lowerBound].range(of: Data("key012".utf8), options: .backwards))
        let key = try #require(bytes[..<field.lowerBound].range(of: Data("key012".utf8), options: .backwards))
        #expect(field.lowerBound - key.upperBound < 4, "not the same record")
        bytes[key.upperBound - 1] = UInt8(ascii: "9")
        try bytes.write(to: database.file)
        let context = try database.open()
        let readable = try context.fetchReadable(ChecksumSample.self)
        #expect(readable.values.count == 19)
        // The damaged row under the key it holds now, and the real key, which the index still
        // lists but no row holds: the record is named, not silently missing.
        #expect(readable.failures.map(\.storageKey) == ["key019", "key012"], "\(readable.failures)")
        #expect(readable.failures.last?.error.kind == .corruptRecord(SQLiteRowChecksum.unreachableRow))
        // Asked for by its old key, through the index (which SQLite also reads the key from): the
        // record exactly, or an error naming it — never another value.
        do {
            #expect(try context.fetch(ChecksumSample.self, id: "key012") == Self.samples[12])
        } catch let error as StorageError {
            #expect(error.kind.code == .corruptRecord)
            #expect(error.key == "key012")
        }
        #expect(!readable.values.contains { $0.id == "key012" })
        #expect(readable.values.filter { $0.id == "key019" } == [Self.samples[19]])
    }

    @Test func aKeyItsDamagedIndexNoLongerListsIsReportedNotMissing() throws {
        let database = try populated()
        defer { database.remove() }
        // The key index's copy of "key012": the table's row holds the key twice in a row
        // (`daokit_key`, then the `id` field); the index's copy stands alone.
        var bytes = try Data(contentsOf: database.file)
        var copies: [Range<Data.Index>] = []
        var from = bytes.startIndex
        while let range = bytes[from...].range(of: Data("key012".utf8)) {
            copies.append(range)
            from = range.upperBound
        }
        let alone = copies.filter { copy in
            !copies.contains {
                $0 != copy && abs($0.lowerBound - copy.upperBound) < 4
                    || abs(copy.lowerBound - $0.upperBound) < 4 && $0 != copy
            }
        }
        let entry = try #require(alone.first, "no index entry among \(copies)")
        #expect(alone.count == 1)
        bytes[entry.upperBound - 1] = UInt8(ascii: "z")  // sorts after every key: the lookup misses
        try bytes.write(to: database.file)
        let context = try database.open()
        // The index misses, the table holds the row: reported, never nil.
        let error = try #require(throws: StorageError.self) { try context.fetch(ChecksumSample.self, id: "key012") }
        #expect(error.kind == .corruptRecord(SQLiteRowChecksum.unlistedRow))
        #expect(error.key == "key012")
        // A key that was never stored still reads as nil.
        #expect(try context.fetch(ChecksumSample.self, id: "key999") == nil)
        // A neighbour the damaged index page no longer finds either: exact, or reported.
        do {
            #expect(try context.fetch(ChecksumSample.self, id: "key013") == Self.samples[13])
        } catch let error as StorageError {
            #expect(error.kind == .corruptRecord(SQLiteRowChecksum.unlistedRow))
        }
        // The table's rows read intact.
        #expect(try context.fetchAll(ChecksumSample.self).count == 20)
    }

    @Test func aChangedNumberIsACorruptRecord() throws {
        let database = try populated()
        defer { database.remove() }
        // Change the checksum column of one row: whichever column changed, the row is reported.
        try sqliteShell(
            database.file, "UPDATE Sample SET daokit_checksum = daokit_checksum + 1 WHERE daokit_key = 'key003'")
        let context = try database.open()
        let error = try #require(throws: StorageError.self) { try context.fetch(ChecksumSample.self, id: "key003") }
        #expect(error.kind.code == .corruptRecord)
        // A value changed behind the context's back (the checksum kept) is reported the same way.
        try sqliteShell(database.file, "UPDATE Sample SET count = 5 WHERE daokit_key = 'key004'")
        #expect(throws: StorageError.self) { try context.fetch(ChecksumSample.self, id: "key004") }
        #expect(
            try context.fetchReadable(ChecksumSample.self).failures.compactMap(\.storageKey).sorted() == [
                "key003", "key004",
            ])
    }

    @Test func aChecksumThatIsNoLongerAnIntegerIsACorruptRecord() throws {
        let database = try populated()
        defer { database.remove() }
        // The same digits as text, or as a real number: DAOKit stores an integer, so a checksum of
        // another storage class is a changed row, even when its value would convert back.
        try sqliteShell(
            database.file,
            "UPDATE Sample SET daokit_checksum = CAST(daokit_checksum AS TEXT) WHERE daokit_key = 'key005'")
        try sqliteShell(
            database.file,
            "UPDATE Sample SET daokit_checksum = CAST(daokit_checksum AS REAL) WHERE daokit_key = 'key009'")
        let context = try database.open()
        let error = try #require(throws: StorageError.self) { try context.fetch(ChecksumSample.self, id: "key005") }
        #expect(error.kind.code == .corruptRecord, "\(error)")
        #expect(error.key == "key005")
        let readable = try context.fetchReadable(ChecksumSample.self)
        #expect(readable.failures.compactMap(\.storageKey).sorted() == ["key005", "key009"])
        #expect(readable.failures.allSatisfy { $0.error.kind.code == .corruptRecord })
        #expect(readable.values.count == 18)
        #expect(try context.fetch(ChecksumSample.self, id: "key006") == Self.samples[6])
    }

    @Test func rowsOfAnEarlierReleaseReadUncheckedAndARewriteAddsTheChecksum() throws {
        let database = try populated()
        defer { database.remove() }
        // The table as an earlier release left it: no checksum column.
        try sqliteShell(database.file, "ALTER TABLE Sample DROP COLUMN daokit_checksum")
        let context = try database.open()
        #expect(try context.fetchAll(ChecksumSample.self).sorted { $0.id < $1.id } == Self.samples)
        try context.save([Self.samples[1]])
        // The column is back; the rewritten row is checked, the others are read unchecked.
        try sqliteShell(database.file, "UPDATE Sample SET count = 5 WHERE daokit_key IN ('key001', 'key002')")
        let reopened = try database.open()
        let readable = try reopened.fetchReadable(ChecksumSample.self)
        #expect(readable.failures.map(\.storageKey) == ["key001"])
        #expect(readable.values.first { $0.id == "key002" }?.count == 5)
    }

    /// The benchmarks' "without checksums" side: rows with a NULL checksum, as an earlier
    /// release's, which every context reads unchecked (a changed value reads as it is).
    @Test func aContextOpenedForBenchmarksWithoutChecksumsWritesRowsWithout() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try SQLiteStorageContext(file: database.file, writingChecksums: false).save(Self.samples)
        try sqliteShell(database.file, "UPDATE Sample SET count = 5 WHERE daokit_key = 'key001'")
        let readable = try database.open().fetchReadable(ChecksumSample.self)
        #expect(readable.failures.isEmpty)
        #expect(readable.values.count == Self.samples.count)
        #expect(readable.values.first { $0.id == "key001" }?.count == 5)
        // Written with checksums (the default, and `true`), the same change is reported.
        try SQLiteStorageContext(file: database.file, writingChecksums: true).save([Self.samples[1]])
        try sqliteShell(database.file, "UPDATE Sample SET count = 5 WHERE daokit_key = 'key001'")
        #expect(try database.open().fetchReadable(ChecksumSample.self).failures.map(\.storageKey) == ["key001"])
    }
}
