import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// `dao` on an SQLite store: it tells a database file from a directory store by itself.
@Suite("SQLite dao tool")
struct SQLiteCLITests {
    /// A database holding three readings (every kind of field) and two notes.
    private func populated() throws -> TemporaryDatabase {
        let database = try TemporaryDatabase()
        let context = try database.open()
        try context.save(
            (1...3).map {
                CLIReading(
                    id: $0, value: Double($0) / 2, count: Int64($0) * 10,
                    taken: Date(timeIntervalSinceReferenceDate: Double($0)),
                    raw: Data([UInt8($0)]), isValid: $0 != 2, note: $0 == 1 ? "first" : nil)
            })
        try context.save([CLINote(id: "a", text: "alpha"), CLINote(id: "b", text: "beta")])
        return database
    }

    @Test func inspectListsTablesRowCountsAndIndexes() throws {
        let database = try populated()
        defer { database.remove() }
        let run = dao("inspect", database.file.path)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.outputLines.first == "Store   \(database.file.path)")
        #expect(run.outputLines.contains { $0.hasPrefix("Format  DAOKit SQLite layout 1, journal mode wal") })
        #expect(
            run.outputLines.contains { $0.hasPrefix("Reading") && $0.contains(" 3 ") && $0.hasSuffix("none") },
            "\(run.outputLines)")
        #expect(run.outputLines.contains { $0.hasPrefix("Note") && $0.contains(" 2 ") }, "\(run.outputLines)")
    }

    @Test func inspectCountsRowsPerVersionAndVerifyNotesTheNewest() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let context = try database.open()
        try context.save((1...3).map { CLITaskV1(id: $0, title: "t\($0)") })
        try context.save((4...5).map { CLITaskV2(id: $0, title: "t\($0)", points: 1) })
        let inspect = dao("inspect", database.file.path)
        #expect(inspect.status == 0, "\(inspect.errors)")
        #expect(inspect.outputLines.contains { $0.hasPrefix("Format  DAOKit SQLite layout 2,") }, "\(inspect.output)")
        #expect(
            inspect.outputLines.contains { $0.hasPrefix("Task") && $0.contains("1: 3, 2: 2") && $0.hasSuffix("none") },
            "\(inspect.output)")
        let verify = dao("verify", database.file.path)
        #expect(verify.status == 0, "\(verify.output)")
        #expect(
            verify.outputLines.contains(
                "note: \(database.file.path): Task: 2 rows of version 2, newer than the other 3 (version 1): code that reads up to version 1 can neither read nor replace them"
            ), "\(verify.output)")
        // One version: nothing to note.
        try context.save((1...3).map { CLITaskV2(id: $0, title: "t\($0)", points: 1) })
        #expect(!dao("verify", database.file.path).output.contains("note:"))
    }

    @Test func dumpPrintsRowsAsJSONInTheirKinds() throws {
        let database = try populated()
        defer { database.remove() }
        let run = dao("dump", database.file.path, "Reading", "1")
        #expect(run.status == 0, "\(run.errors)")
        #expect(
            run.output == """
                {
                  "1": {
                    "id": 1,
                    "value": 0.5,
                    "count": 10,
                    "taken": 1.0,
                    "raw": "AQ==",
                    "isValid": true,
                    "note": "first"
                  }
                }

                """)
        dao("dump", database.file.path, "Nothing").expectUsageError(
            startingWith: "dao dump: no entity named 'Nothing' in \(database.file.path); its entities are Note, Reading"
        )
        dao("dump", database.file.path, "Note", "zz").expectUsageError(
            startingWith: "dao dump: no Note record with key \"zz\"")
    }

    @Test func verifyPassesASoundDatabase() throws {
        let database = try populated()
        defer { database.remove() }
        let run = dao("verify", database.file.path)
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.outputLines == ["OK: \(database.file.path) is sound (integrity_check ok; 2 entity tables, 5 rows)"])
    }

    @Test func verifyReportsAValueOfAKindTheColumnNeverRecorded() throws {
        let database = try populated()
        defer { database.remove() }
        try sqliteShell(database.file, "UPDATE Note SET text = 42 WHERE daokit_key = 'b'")
        let run = dao("verify", database.file.path)
        #expect(run.status == 1)
        #expect(
            run.outputLines.first
                == "\(database.file.path): Note.text: 1 integer value where daokit_field_kinds records string; queries on it may be answered wrongly"
        )
        // Changed behind the context's back, the row no longer matches its checksum either.
        #expect(
            run.outputLines.contains(
                "\(database.file.path): Note \"b\": the row's checksum does not match its contents: bytes of it changed in the file"
            ),
            "\(run.output)")
        #expect(run.outputLines.last == "2 problems in \(database.file.path) (2 entity tables, 5 rows)")
    }

    @Test func verifyReportsWhatIntegrityCheckFinds() throws {
        let database = try populated()
        defer { database.remove() }
        try sqliteShell(database.file, "PRAGMA journal_mode = DELETE")  // everything into the main file
        // Swap two bytes of a b-tree page's cell pointers: the page still parses, the b-tree does not hold.
        let handle = try FileHandle(forUpdating: database.file)
        let pageSize = 4096
        try handle.seek(toOffset: UInt64(pageSize))
        var page = try #require(try handle.read(upToCount: pageSize))
        page[8] = 0xFF
        page[9] = 0xF0
        try handle.seek(toOffset: UInt64(pageSize))
        try handle.write(contentsOf: page)
        try handle.close()
        let run = dao("verify", database.file.path)
        #expect(run.status == 1, "\(run.output)")
        #expect(run.outputLines.contains { $0.hasPrefix("\(database.file.path): ") }, "\(run.output)")
        #expect(run.outputLines.last?.contains("problem") == true)
    }

    @Test func aFileThatIsNotADatabaseIsStillNotADirectory() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try Data("hello".utf8).write(to: database.file)
        dao("inspect", database.file.path).expectUsageError(
            startingWith: "dao inspect: not a directory: \(database.file.path)")
    }

    @Test func anotherApplicationsDatabaseIsNotADAOKitStore() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try sqliteShell(database.file, "CREATE TABLE t(x); PRAGMA application_id = 7;")
        dao("verify", database.file.path).expectUsageError(
            startingWith:
                "dao verify: \(database.file.path) is an SQLite database, but not a DAOKit store (application_id 7)")
    }

    @Test func theDemoOnSQLiteLeavesADatabaseThatInspectAndVerifyRead() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let demo = dao("demo", "--sqlite", database.file.path)
        #expect(demo.status == 0, "\(demo.errors)")
        #expect(demo.outputLines.first == "SQLite store: \(database.file.path)  (new)")
        #expect(demo.output.contains("message 3 is a row of the table Message: id=3, dialogID=\"family\""))
        #expect(dao("verify", database.file.path).status == 0)
        let inspect = dao("inspect", database.file.path)
        #expect(inspect.outputLines.contains { $0.hasPrefix("Message") && $0.contains(" 10 ") }, "\(inspect.output)")
        // Run again on the same file: the earlier data is replaced.
        #expect(
            dao("demo", "--sqlite", database.file.path).outputLines.first
                == "SQLite store: \(database.file.path)  (an earlier demo's data is replaced)")
    }
}
