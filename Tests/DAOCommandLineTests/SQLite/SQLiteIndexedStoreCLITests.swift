import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// A message with declared indexes: its table's indexes are `COLLATE DAOKIT`, which the tool must
/// register to read or check them.
private struct IndexedMessage: Storable, Equatable {
    static let entityName = "IndexedMessage"
    static let indexes = [StorageIndex("dialog", "text"), StorageIndex("text")]
    var id: Int
    var dialog: String
    var text: String
}

/// Every `dao` command works on an SQLite store whose entities declare indexes (they once failed
/// with "no such collation sequence: DAOKIT").
@Suite("dao on an SQLite store with indexes")
struct SQLiteIndexedStoreCLITests {
    private func populated() throws -> TemporaryDatabase {
        let database = try TemporaryDatabase()
        let context = try database.open()
        try context.save(
            (1...40).map {
                IndexedMessage(id: $0, dialog: "d\($0 % 3)", text: $0 % 2 == 0 ? "Ké \($0)" : "K\u{212A} \($0)")
            })
        return database
    }

    @Test func inspectDumpAndVerifyReadTheIndexedStore() throws {
        let database = try populated()
        defer { database.remove() }
        let inspect = dao("inspect", database.file.path)
        #expect(inspect.status == 0, "\(inspect.errors)")
        #expect(
            inspect.outputLines.contains {
                $0.hasPrefix("IndexedMessage") && $0.contains(" 40 ") && $0.contains("(dialog, text)")
            },
            "\(inspect.output)")
        let dump = dao("dump", database.file.path, "IndexedMessage", "7")
        #expect(dump.status == 0, "\(dump.errors)")
        let object = try foundationJSON(dump.output)
        #expect(((object["7"] as? [String: Any])?["dialog"] as? String) == "d1", "\(dump.output)")
        let all = dao("dump", database.file.path, "IndexedMessage")
        #expect(all.status == 0, "\(all.errors)")
        #expect(try foundationJSON(all.output).count == 40)
        let verify = dao("verify", database.file.path)
        #expect(verify.status == 0, "\(verify.output)\(verify.errors)")
        #expect(
            verify.outputLines.last?.hasPrefix(
                "OK: \(database.file.path) is sound (integrity_check ok; 1 entity table, 40 rows") == true,
            "\(verify.output)")
    }

    @Test func verifyFindsAnIndexThatNoLongerMatchesItsTable() throws {
        let database = try populated()
        defer { database.remove() }
        // Change a row's indexed field behind the index's back: only integrity_check (which needs
        // the collation to walk the index) can tell.
        try corruptIndexEntry(of: database.file)
        let verify = dao("verify", database.file.path)
        #expect(verify.status == 1, "\(verify.output)")
        #expect(verify.outputLines.contains { $0.contains("integrity_check") }, "\(verify.output)")
    }

    /// Rewrites one indexed value in the table only, by dropping the indexes, updating, and
    /// restoring the schema entries without rebuilding them.
    private func corruptIndexEntry(of file: URL) throws {
        try sqliteShell(
            file,
            """
            PRAGMA journal_mode = DELETE;
            CREATE TABLE saved AS SELECT type, name, tbl_name, rootpage, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL;
            PRAGMA writable_schema = ON;
            DELETE FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL;
            """)
        try sqliteShell(
            file,
            """
            UPDATE "IndexedMessage" SET text = 'changed' WHERE daokit_key = '7';
            PRAGMA writable_schema = ON;
            INSERT INTO sqlite_schema(type, name, tbl_name, rootpage, sql) SELECT * FROM saved;
            PRAGMA writable_schema = OFF;
            DROP TABLE saved;
            """)
    }
}
