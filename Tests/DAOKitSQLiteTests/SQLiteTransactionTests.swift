import DAOKit
import DAOKitSQLite
import DAOKitTestSupport
import Foundation
import Testing

/// What SQLite's transactions add to the promises every transactional context keeps (those are
/// checked by DAOKitTests' TransactionTests): a database in memory refuses them, a failed call
/// inside the body is a savepoint of its own, an outer handle is refused while a nested
/// transaction is open, and the context's tables are read again after a transaction widened one.
@Suite("SQLite transactions: savepoints per call and per nesting, one connection each")
struct SQLiteTransactionTests {
    @Test func aDatabaseInMemoryRefusesATransaction() throws {
        let context = try SQLiteStorageContext()
        let error = try #require(throws: StorageError.self) { try context.transaction { _ in } }
        #expect(error.code == .unsupported)
    }

    @Test func aFailedCallInsideTheBodyUndoesOnlyItself() throws {
        let database = try TemporarySQLiteFile()
        let context = database.context
        try context.save([SQLiteTxNote(id: "a", text: "stored")])
        try context.transaction { tx in
            try tx.save([SQLiteTxNote(id: "b", text: "kept")])
            let refused = try #require(throws: StorageError.self) {
                try tx.save([SQLiteTxNote(id: "c", text: "undone"), SQLiteTxNote(id: "a", text: "dup")], mode: .insert)
            }
            #expect(refused.kind == .duplicateID)
            #expect(try tx.fetch(SQLiteTxNote.self, id: "c") == nil)
        }
        #expect(try context.fetchAll(SQLiteTxNote.self).map(\.id).sorted() == ["a", "b"])
    }

    @Test func theOuterHandleIsRefusedWhileANestedTransactionIsOpen() throws {
        let database = try TemporarySQLiteFile()
        let context = database.context
        try context.transaction { outer in
            try outer.transaction { _ in
                let error = try #require(throws: StorageError.self) {
                    try outer.save([SQLiteTxNote(id: "x", text: "")])
                }
                #expect(error.code == .transactionConflict)
            }
            try outer.save([SQLiteTxNote(id: "y", text: "")])
        }
        #expect(try context.fetchAll(SQLiteTxNote.self).map(\.id) == ["y"])
    }

    @Test func aColumnATransactionAddedIsWrittenByTheContextAfterwards() throws {
        let database = try TemporarySQLiteFile()
        let context = database.context
        try context.save([SQLiteTxNote(id: "a", text: "")])
        try context.transaction { tx in try tx.save([SQLiteTxWiderNote(id: "b", text: "", extra: 1)]) }
        try context.save([SQLiteTxWiderNote(id: "c", text: "", extra: 2)])
        #expect(try context.fetchAll(SQLiteTxWiderNote.self).compactMap(\.extra).sorted() == [1, 2])
        // And a column added in a rolled-back transaction is not believed to exist.
        #expect(throws: SQLiteTxFailure.self) {
            try context.transaction { tx in
                try tx.save([SQLiteTxWidestNote(id: "d", text: "", extra: nil, more: "m")])
                throw SQLiteTxFailure()
            }
        }
        try context.save([SQLiteTxWidestNote(id: "e", text: "", extra: nil, more: "n")])
        #expect(try context.fetch(SQLiteTxWidestNote.self, id: "e")?.more == "n")
    }

    /// The context takes over what a committed transaction knew of the tables it wrote; a column
    /// added in one of its savepoints that rolled back must not be part of that.
    @Test func aColumnAddedInARolledBackSavepointIsNotBelievedAfterTheCommit() throws {
        let database = try TemporarySQLiteFile()
        let context = database.context
        try context.save([SQLiteTxNote(id: "a", text: "")])
        try context.transaction { tx in
            try tx.save([SQLiteTxWiderNote(id: "b", text: "", extra: 1)])
            #expect(throws: SQLiteTxFailure.self) {
                try tx.transaction { nested in
                    try nested.save([SQLiteTxWidestNote(id: "c", text: "", extra: nil, more: "m")])
                    throw SQLiteTxFailure()
                }
            }
        }
        try context.save([SQLiteTxWidestNote(id: "d", text: "", extra: 3, more: "n")])
        #expect(
            try context.fetch(SQLiteTxWidestNote.self, id: "d")
                == SQLiteTxWidestNote(id: "d", text: "", extra: 3, more: "n"))
        #expect(try context.fetchAll(SQLiteTxWiderNote.self).map(\.id).sorted() == ["a", "b", "d"])
        // And what the committed transaction learned serves the context's next transaction.
        try context.transaction { tx in try tx.save([SQLiteTxWidestNote(id: "e", text: "", extra: 4, more: "o")]) }
        #expect(try context.fetch(SQLiteTxWidestNote.self, id: "e")?.more == "o")
    }

    @Test func anotherContextOnTheFileSeesNothingUntilTheCommit() throws {
        let database = try TemporarySQLiteFile()
        let other = try SQLiteStorageContext(file: database.file)
        try database.context.transaction { tx in
            try tx.save([SQLiteTxNote(id: "a", text: "")])
            #expect(try other.count(SQLiteTxNote.self) == 0)
        }
        #expect(try other.count(SQLiteTxNote.self) == 1)
    }
}

/// A database file in a fresh temporary folder, removed with the value.
private final class TemporarySQLiteFile {
    let folder: URL
    let file: URL
    let context: SQLiteStorageContext

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("daokit-sqlite-tx-\(UUID().uuidString)")
        file = folder.appendingPathComponent("store.sqlite")
        context = try SQLiteStorageContext(file: file)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }
}

private struct SQLiteTxFailure: Error {}

private struct SQLiteTxNote: Storable, Equatable {
    static let entityName = "Note"
    var id: String
    var text: String
}

private struct SQLiteTxWiderNote: Storable, Equatable {
    static let entityName = "Note"
    var id: String
    var text: String
    var extra: Int?
}

private struct SQLiteTxWidestNote: Storable, Equatable {
    static let entityName = "Note"
    var id: String
    var text: String
    var extra: Int?
    var more: String?
}
