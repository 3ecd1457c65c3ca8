import DAOKit
import DAOKitSQLite
import DAOKitTestSupport
import Foundation
import Testing

/// A `read(id:)` of an id that is not stored costs what a hit costs: the first miss on a table
/// compares the table's key index with its rows, once, and later misses answer from what it
/// found until another connection commits. A row a damaged index hides is still reported at
/// every miss, never `nil`. Asserted on the work SQLite does (its full-scan steps) and on the
/// comparisons the context counts, never on time.
@Suite("SQLite misses compare the key index with the table once")
struct SQLiteKeyIndexCheckTests {
    static let samples = SQLiteChecksumTests.samples

    static func sample(_ id: String) -> ChecksumSample {
        ChecksumSample(id: id, text: "added \(id)", count: 1, ratio: 0.5, raw: Data([1]))
    }

    @Test func aSecondMissScansNoTable() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try database.open().save(Self.samples)
        let context = try database.open()
        #expect(try context.fetch(ChecksumSample.self, id: "key003") == Self.samples[3])
        let beforeMisses = context.fullScanSteps
        #expect(context.keyIndexComparisons == 0)  // a hit compares nothing
        #expect(try context.fetch(ChecksumSample.self, id: "absent-1") == nil)
        #expect(context.keyIndexComparisons == 1)
        let afterFirstMiss = context.fullScanSteps
        // The comparison walks the table once: SQLite counts each step from one row to the next.
        #expect(afterFirstMiss - beforeMisses >= Self.samples.count - 1, "the comparison scanned no table")
        for miss in 2...10 {
            #expect(try context.fetch(ChecksumSample.self, id: "absent-\(miss)") == nil)
        }
        #expect(try context.fetch(ChecksumSample.self, id: "key004") == Self.samples[4])
        #expect(context.keyIndexComparisons == 1)
        #expect(context.fullScanSteps == afterFirstMiss, "misses after the first scanned a table")
    }

    @Test func anotherConnectionsCommitMakesTheNextMissCompareAgain() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let context = try database.open()
        try context.save(Self.samples)
        #expect(try context.fetch(ChecksumSample.self, id: "absent") == nil)
        #expect(context.keyIndexComparisons == 1)
        // The context's own writes keep its index and table together: nothing to compare again.
        try context.save([Self.sample("own-1")])
        try context.delete(ChecksumSample.self, ids: ["key000"])
        #expect(try context.fetch(ChecksumSample.self, id: "absent") == nil)
        #expect(try context.fetch(ChecksumSample.self, id: "key000") == nil)
        #expect(context.keyIndexComparisons == 1)
        // Another context's commit: compared again at the next miss, once.
        try database.open().save([Self.sample("other-1")])
        #expect(try context.fetch(ChecksumSample.self, id: "absent") == nil)
        #expect(try context.fetch(ChecksumSample.self, id: "absent-2") == nil)
        #expect(context.keyIndexComparisons == 2)
        // A transaction commits on a connection of its own.
        try context.transaction { try $0.save([Self.sample("transaction-1")]) }
        #expect(try context.fetch(ChecksumSample.self, id: "absent") == nil)
        #expect(context.keyIndexComparisons == 3)
        #expect(try context.fetch(ChecksumSample.self, id: "other-1") == Self.sample("other-1"))
        #expect(try context.fetch(ChecksumSample.self, id: "transaction-1") == Self.sample("transaction-1"))
    }

    @Test func aRowADamagedIndexHidesIsReportedAtEveryMiss() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try database.open().save(Self.samples)
        try sqliteShell(database.file, "PRAGMA journal_mode = DELETE")  // every row in the main file
        try Self.damageIndexEntry(of: "key012", in: database)
        let context = try database.open()
        for _ in 0..<3 {
            let error = try #require(throws: StorageError.self) {
                try context.fetch(ChecksumSample.self, id: "key012")
            }
            #expect(error.kind == .corruptRecord(SQLiteRowChecksum.unlistedRow))
            #expect(error.key == "key012")
            #expect(error.location == database.file.path)
            // Not stored: still nil, whatever else the index hides.
            #expect(try context.fetch(ChecksumSample.self, id: "key999") == nil)
        }
        #expect(context.keyIndexComparisons == 1)
        // A write to the table whose index was found damaged: SQLite may move its entries, so
        // the next miss compares again, and still reports the row.
        try context.save([Self.sample("key500")])
        #expect(throws: StorageError.self) { try context.fetch(ChecksumSample.self, id: "key012") }
        #expect(context.keyIndexComparisons == 2)
    }

    @Test func aDamagedIndexIsComparedAgainInANewContext() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try database.open().save(Self.samples)
        try sqliteShell(database.file, "PRAGMA journal_mode = DELETE")
        do {
            let before = try database.open()
            #expect(try before.fetch(ChecksumSample.self, id: "absent") == nil)
            #expect(before.keyIndexComparisons == 1)
        }  // closed: what it found is gone with its connection
        try Self.damageIndexEntry(of: "key012", in: database)
        let context = try database.open()
        #expect(throws: StorageError.self) { try context.fetch(ChecksumSample.self, id: "key012") }
        #expect(context.keyIndexComparisons == 1)
    }

    /// Changes the last byte of the key index's copy of `key` to `z`, which sorts after every
    /// key, so that a lookup of `key` misses while the table still holds its row. The table's
    /// row holds the key twice in a row (`daokit_key`, then the `id` field); the index's copy
    /// stands alone.
    static func damageIndexEntry(of key: String, in database: TemporaryDatabase) throws {
        var bytes = try Data(contentsOf: database.file)
        var copies: [Range<Data.Index>] = []
        var from = bytes.startIndex
        while let range = bytes[from...].range(of: Data(key.utf8)) {
            copies.append(range)
            from = range.upperBound
        }
        let alone = copies.filter { copy in
            !copies.contains { $0 != copy && abs($0.lowerBound - copy.upperBound) < 4 }
                && !copies.contains { $0 != copy && abs(copy.lowerBound - $0.upperBound) < 4 }
        }
        #expect(alone.count == 1, "the index's copy of \(key) among \(copies)")
        let entry = try #require(alone.first)
        bytes[entry.upperBound - 1] = UInt8(ascii: "z")
        try bytes.write(to: database.file)
    }
}
