import CSQLite
import DAOKit

/// A failure reported by SQLite: the ``StorageError/underlyingError`` of every ``StorageError`` an
/// ``SQLiteStorageContext`` throws because SQLite refused something.
///
/// It carries SQLite's extended result code, so a caller can tell a busy database
/// (`primaryResultCode == 5`, `SQLITE_BUSY`) from a full disk (13, `SQLITE_FULL`) or a damaged
/// file (11, `SQLITE_CORRUPT`; 26, `SQLITE_NOTADB`), and SQLite's own message.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// SQLite's extended result code, such as 2067 (`SQLITE_CONSTRAINT_UNIQUE`).
    public let extendedResultCode: Int32
    /// SQLite's message for the failure (`sqlite3_errmsg`), such as "database is locked".
    public let message: String
    /// The SQL statement that failed, when one did.
    public let sql: String?

    /// Creates an error from SQLite's result code and message.
    public init(extendedResultCode: Int32, message: String, sql: String? = nil) {
        self.extendedResultCode = extendedResultCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code: the low byte of ``extendedResultCode`` (5 for every kind of
    /// `SQLITE_BUSY`).
    public var primaryResultCode: Int32 { extendedResultCode & 0xFF }

    /// The symbolic name of the primary result code, such as `SQLITE_BUSY`.
    public var codeName: String { Self.primaryNames[Int(primaryResultCode)] ?? "SQLITE_UNKNOWN" }

    /// `SQLite error <extended code> (<name>): <message>`, and the statement when there is one.
    public var description: String {
        var text = "SQLite error \(extendedResultCode) (\(codeName)): \(message)"
        if let sql { text += " in `\(sql)`" }
        return text
    }

    /// Whether SQLite says the file is not a database or is damaged.
    var isCorruption: Bool { primaryResultCode == SQLITE_CORRUPT || primaryResultCode == SQLITE_NOTADB }

    private static let primaryNames: [Int: String] = [
        1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT", 5: "SQLITE_BUSY",
        6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY", 9: "SQLITE_INTERRUPT", 10: "SQLITE_IOERR",
        11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND", 13: "SQLITE_FULL", 14: "SQLITE_CANTOPEN",
        15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY", 17: "SQLITE_SCHEMA", 18: "SQLITE_TOOBIG",
        19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH", 21: "SQLITE_MISUSE", 22: "SQLITE_NOLFS",
        23: "SQLITE_AUTH", 24: "SQLITE_FORMAT", 25: "SQLITE_RANGE", 26: "SQLITE_NOTADB",
        27: "SQLITE_NOTICE", 28: "SQLITE_WARNING",
    ]
}

extension StorageError {
    /// The storage error for a failure of SQLite: ``Kind/corruptRecord(_:)`` when SQLite says the
    /// file is damaged or not a database, ``Kind/io(_:)`` otherwise; the detail holds the code
    /// and message, the location the database file.
    init(sqlite failure: SQLiteError, entityName: String?, key: String? = nil, location: String) {
        let detail = "SQLite error \(failure.extendedResultCode) (\(failure.codeName)): \(failure.message)"
        self.init(
            failure.isCorruption ? .corruptRecord(detail) : .io(detail), entityName: entityName, key: key,
            location: location, underlyingError: failure)
    }
}
