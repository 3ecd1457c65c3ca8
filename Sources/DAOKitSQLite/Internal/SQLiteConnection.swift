import CSQLite
import DAOKit
import DAOKitSQL
import Foundation

/// One connection to an SQLite database, with its cache of prepared statements.
///
/// Not thread-safe by itself (it is opened with `SQLITE_OPEN_NOMUTEX`): ``SQLiteStorageContext``
/// uses it only under its lock, which is cheaper than SQLite's own mutex on every call and is
/// needed anyway to keep a transaction's statements together.
final class SQLiteConnection {
    let handle: OpaquePointer
    /// The database file's path, or `:memory:`; named by every error.
    let location: String
    /// Statements by SQL text. Entries are never evicted: the context prepares a bounded set
    /// (a few per entity type, one per distinct query shape), each a few kilobytes.
    private var statements: [String: SQLiteStatement] = [:]

    /// How long a statement waits for another connection's lock (another process writing)
    /// before failing with `SQLITE_BUSY`.
    static let busyTimeoutMilliseconds: Int32 = 30_000

    /// Opens (creating it if needed) the database at `path`.
    /// - Throws: ``SQLiteError`` when SQLite cannot open the file.
    init(path: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(result))
            let code = handle.map { sqlite3_extended_errcode($0) } ?? result
            sqlite3_close_v2(handle)
            throw SQLiteError(extendedResultCode: code, message: message)
        }
        self.handle = handle
        self.location = path
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds)
        SwiftStringCollation.register(on: handle)
    }

    deinit {
        statements.removeAll()  // finalized before the connection closes
        sqlite3_close_v2(handle)
    }

    /// Whether the file could only be opened for reading (its permissions, a read-only volume).
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// How many rows the last `INSERT`, `UPDATE` or `DELETE` of this connection changed (an
    /// upsert whose update was refused by its `WHERE` changed none).
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The statement for `sql`, prepared once and reused, reset and ready to bind.
    /// - Throws: ``SQLiteError`` when SQLite cannot prepare it.
    func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var prepared: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil)
        guard result == SQLITE_OK, let prepared else { throw failure(sql: sql) }
        let statement = SQLiteStatement(handle: prepared, sql: sql, database: handle)
        statements[sql] = statement
        return statement
    }

    /// Runs `sql` (one or more statements, no parameters): pragmas and schema changes.
    /// - Throws: ``SQLiteError``.
    func execute(_ sql: String) throws(SQLiteError) {
        if sqlite3_exec(handle, sql, nil, nil, nil) != SQLITE_OK { throw failure(sql: sql) }
    }

    /// The single value the query `sql` returns, or `nil` when it returns no row.
    func scalar(_ sql: String) throws(SQLiteError) -> SQLiteValue? {
        let statement = try statement(sql)
        defer { statement.reset() }
        return try statement.step() ? statement.value(at: 0) : nil
    }

    /// The error SQLite reports for the last call on this connection.
    func failure(sql: String?) -> SQLiteError {
        SQLiteError(
            extendedResultCode: sqlite3_extended_errcode(handle), message: String(cString: sqlite3_errmsg(handle)),
            sql: sql)
    }

    /// Runs `body` in a transaction and commits it; rolls back when `body` or the commit throws.
    ///
    /// A write transaction begins `IMMEDIATE`: it takes the database's write lock first (waiting
    /// for another process's writer up to the busy timeout), so it can never fail half-way with
    /// `SQLITE_BUSY` because another writer got in between its reads and its writes.
    ///
    /// Inside a transaction already open on this connection (a DAOKit transaction's), it is a
    /// savepoint instead: the call is all or nothing on its own, and commits with the transaction.
    func transaction<Result>(writing: Bool, _ body: () throws -> Result) throws -> Result {
        if sqlite3_get_autocommit(handle) == 0 {
            try statement("SAVEPOINT daokit_call").run()
            do {
                let result = try body()
                try statement("RELEASE daokit_call").run()
                return result
            } catch {
                if sqlite3_get_autocommit(handle) == 0 {
                    try? statement("ROLLBACK TO daokit_call").run()
                    try? statement("RELEASE daokit_call").run()
                }
                throw error
            }
        }
        try statement(writing ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED").run()
        do {
            let result = try body()
            try statement("COMMIT").run()
            return result
        } catch {
            // After some errors (SQLITE_FULL, SQLITE_IOERR...) SQLite has rolled back already.
            if sqlite3_get_autocommit(handle) == 0 { try? statement("ROLLBACK").run() }
            throw error
        }
    }
}
