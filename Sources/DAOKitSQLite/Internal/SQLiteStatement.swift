import CSQLite
import DAOKit
import DAOKitSQL
import Foundation

/// A prepared statement of an ``SQLiteConnection``: parameters are bound by position, never
/// interpolated into the SQL.
///
/// Statements live in their connection's cache and are reused: ``reset()`` before each use
/// clears the bindings and the previous run. Like its connection, a statement is used by one
/// thread at a time, under the context's lock.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    /// The connection's handle, for error messages; the connection outlives its statements.
    private let database: OpaquePointer
    /// The reader of this statement's rows, kept while the column count stays the same (a
    /// column added by another connection makes SQLite prepare the statement again, wider).
    var cachedReader: SQLiteRowReader?

    init(handle: OpaquePointer, sql: String, database: OpaquePointer) {
        self.handle = handle
        self.sql = sql
        self.database = database
    }

    deinit { sqlite3_finalize(handle) }

    /// Makes the statement ready to run again with new parameters.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `value` to the parameter at `index` (1-based).
    func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let result: Int32
        switch value {
        case .null: result = sqlite3_bind_null(handle, index)
        case .integer(let number): result = sqlite3_bind_int64(handle, index, number)
        case .real(let number): result = sqlite3_bind_double(handle, index, number)
        case .text(let string): result = bindText(string, at: index)
        case .blob(let data):
            result = data.withUnsafeBytes { bytes in
                // An empty buffer may have no address, which SQLite would store as NULL.
                guard let base = bytes.baseAddress, bytes.count > 0 else {
                    return sqlite3_bind_zeroblob(handle, index, 0)
                }
                return sqlite3_bind_blob(handle, index, base, Int32(bytes.count), sqliteTransient)
            }
        }
        if result != SQLITE_OK { throw failure(result) }
    }

    /// Binds a string by its UTF-8 bytes and explicit length, so that a NUL inside it is kept.
    @discardableResult
    func bindText(_ string: String, at index: Int32) -> Int32 {
        var string = string
        return string.withUTF8 { bytes in
            // An empty buffer may have no address, which SQLite would store as NULL.
            guard let base = bytes.baseAddress, bytes.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), sqliteTransient)
            }
        }
    }

    /// Runs the statement one step: `true` when a row is ready to read, `false` when it is done.
    @inline(__always)
    func step() throws(SQLiteError) -> Bool {
        let result = sqlite3_step(handle)
        if result == SQLITE_ROW { return true }
        if result == SQLITE_DONE { return false }
        throw failure(result)
    }

    /// Runs the statement to its end, ignoring rows.
    func run() throws(SQLiteError) {
        while try step() {}
    }

    /// The number of columns of the statement's rows.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The name of the column at `index`.
    func columnName(_ index: Int32) -> String {
        sqlite3_column_name(handle, index).map { String(cString: $0) } ?? ""
    }

    /// The value of the column at `index` of the current row.
    func value(at index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, index))
        case SQLITE_TEXT: return .text(text(at: index))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, index))
            guard count > 0, let bytes = sqlite3_column_blob(handle, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// The text of the column at `index`, by its byte length (a NUL inside is kept).
    @inline(__always)
    func text(at index: Int32) -> String {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard count > 0, let bytes = sqlite3_column_text(handle, index) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The error for result code `result`, with the connection's extended code and message.
    func failure(_ result: Int32) -> SQLiteError {
        SQLiteError(
            extendedResultCode: sqlite3_extended_errcode(database),
            message: String(cString: sqlite3_errmsg(database)), sql: sql)
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies a bound buffer before the call returns. The C macro is a
/// cast of -1 to a function pointer, which Swift does not import.
var sqliteTransient: sqlite3_destructor_type {
    unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}

extension SQLiteStatement {
    /// The integer value of the column at `index` of the current row.
    func integer(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }
}
