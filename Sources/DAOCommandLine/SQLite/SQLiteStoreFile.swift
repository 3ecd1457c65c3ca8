import CSQLite
import DAOKit
import DAOKitSQL
import DAOKitSQLite
import Foundation

/// A DAOKit SQLite database opened read-only for `dao inspect`, `dump` and `verify`.
///
/// The tool talks to SQLite directly (it has no entity types to hand to
/// `SQLiteStorageContext`), and never writes: `SQLITE_OPEN_READONLY`, so it neither checkpoints
/// the log nor changes anything a running app sees.
final class SQLiteStoreFile {
    /// One value of a result row, in SQLite's storage classes.
    enum Value: Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])
    }

    let path: String
    private let handle: OpaquePointer

    /// Whether `path` names a file that starts with SQLite's header ("SQLite format 3" and a NUL):
    /// the commands then treat it as a database. Anything else is left to the directory commands,
    /// which say what it is not.
    static func isDatabase(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            let handle = FileHandle(forReadingAtPath: path)
        else { return false }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        return header == Data("SQLite format 3\0".utf8)
    }

    /// Opens the database at `path` for reading.
    /// - Throws: ``UsageError`` (exit status 2) when the file is not an SQLite database, or not a
    ///   DAOKit one.
    init(path: String, command: String) throws {
        self.path = path
        var handle: OpaquePointer?
        let result = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil)
        guard result == SQLITE_OK, let handle else {
            sqlite3_close_v2(handle)
            throw UsageError("dao \(command): cannot open \(path): \(String(cString: sqlite3_errstr(result)))")
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, 5_000)
        // The indexes are declared `COLLATE DAOKIT`: without the collation SQLite can neither
        // read them nor check them.
        SwiftStringCollation.register(on: handle)
        do {
            guard case .integer(let application)? = try rows("PRAGMA application_id").first?.first else {
                throw UsageError("dao \(command): \(path) is not an SQLite database")
            }
            guard application == 0x4441_4F4B else {
                throw UsageError(
                    "dao \(command): \(path) is an SQLite database, but not a DAOKit store (application_id \(application))"
                )
            }
        } catch let error as SQLiteToolError {
            throw UsageError("dao \(command): \(path) is not a DAOKit store: \(error.message)")
        }
    }

    deinit { sqlite3_close_v2(handle) }

    /// Every row `sql` returns, with `arguments` bound as text.
    func rows(_ sql: String, _ arguments: [String] = []) throws(SQLiteToolError) -> [[Value]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw failure() }
        defer { sqlite3_finalize(statement) }
        for (position, argument) in arguments.enumerated() {
            sqlite3_bind_text(
                statement, Int32(position + 1), argument, -1,
                unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self))
        }
        var rows: [[Value]] = []
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { return rows }
            guard result == SQLITE_ROW else { throw failure() }
            rows.append(
                (0..<sqlite3_column_count(statement)).map { column in
                    switch sqlite3_column_type(statement, column) {
                    case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
                    case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
                    case SQLITE_TEXT:
                        let count = Int(sqlite3_column_bytes(statement, column))
                        guard count > 0, let bytes = sqlite3_column_text(statement, column) else { return .text("") }
                        return .text(String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self))
                    case SQLITE_BLOB:
                        let count = Int(sqlite3_column_bytes(statement, column))
                        guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob([]) }
                        return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: count)))
                    default: return .null
                    }
                })
        }
    }

    /// The entity tables: every table but DAOKit's and SQLite's own, sorted by name.
    func entityTables() throws(SQLiteToolError) -> [String] {
        try rows(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' "
                + "AND name NOT LIKE 'daokit\\_%' ESCAPE '\\' ORDER BY name"
        ).compactMap { row in
            if case .text(let name) = row.first { return name }
            return nil
        }
    }

    /// The field columns of a table, in order (without `daokit_key`, `daokit_checksum` and the
    /// entity version columns).
    func fieldColumns(of table: String) throws(SQLiteToolError) -> [String] {
        let reserved = Set(
            [SQLiteRowChecksum.keyColumnName, SQLiteRowChecksum.columnName] + SQLiteEntityVersions.columnNames)
        return try columns(of: table).filter { !reserved.contains($0) }
    }

    /// Every column of a table, in order.
    func columns(of table: String) throws(SQLiteToolError) -> [String] {
        try rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [table]).compactMap { row in
            if case .text(let name) = row.first { return name }
            return nil
        }
    }

    /// How many rows of `table` each entity version wrote, oldest first (version 1 for a row
    /// without one, or a table written before versions).
    func rowsPerVersion(of table: String) throws(SQLiteToolError) -> [(version: Int64, rows: Int64)] {
        let quoted = Self.quoted(table)
        guard try columns(of: table).contains(SQLiteEntityVersions.versionColumn) else {
            if case .integer(let count)? = try rows("SELECT count(*) FROM \(quoted)").first?.first, count > 0 {
                return [(1, count)]
            }
            return []
        }
        return try rows(
            "SELECT coalesce(\(SQLiteEntityVersions.versionColumn), 1) AS version, count(*) FROM \(quoted) GROUP BY version ORDER BY version"
        ).compactMap { row in
            guard case .integer(let version) = row[0], case .integer(let count) = row[1] else { return nil }
            return (version, count)
        }
    }

    /// Checks every row of `table` against its checksum (``SQLiteRowChecksum``), as the context
    /// does when it reads it: the keys of the rows whose bytes changed, and how many rows have no
    /// checksum (written before checksums; read unchecked).
    func checksumFailures(of table: String) throws(SQLiteToolError) -> (damagedKeys: [String], unchecked: Int) {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "SELECT * FROM " + Self.quoted(table), -1, &statement, nil) == SQLITE_OK,
            let statement
        else {
            throw failure()
        }
        defer { sqlite3_finalize(statement) }
        let layout = SQLiteRowChecksum.RowLayout(statement: statement)
        var damaged: [String] = []
        var unchecked = 0
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { return (damaged, unchecked) }
            guard result == SQLITE_ROW else { throw failure() }
            guard let column = layout.checksumColumn, sqlite3_column_type(statement, column) != SQLITE_NULL else {
                unchecked += 1
                continue
            }
            if !layout.rowIsIntact(statement) {
                let count = Int(sqlite3_column_bytes(statement, 0))
                let key =
                    count > 0
                    ? sqlite3_column_text(statement, 0).map {
                        String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
                    } ?? "" : ""
                damaged.append(key)
            }
        }
    }

    /// The kinds recorded for each field of `table`'s entity, by field.
    func kinds(of table: String) throws(SQLiteToolError) -> [String: Set<String>] {
        var kinds: [String: Set<String>] = [:]
        for row in try rows("SELECT field, kind FROM daokit_field_kinds WHERE entity = ?", [table]) {
            if case .text(let field) = row[0], case .text(let kind) = row[1] { kinds[field, default: []].insert(kind) }
        }
        return kinds
    }

    /// `name` as an SQL identifier.
    static func quoted(_ name: String) -> String {
        SQLQuoting.identifier(name)
    }

    private func failure() -> SQLiteToolError {
        SQLiteToolError(
            message: "SQLite error \(sqlite3_extended_errcode(handle)): \(String(cString: sqlite3_errmsg(handle)))")
    }
}

/// A failure SQLite reported to the tool, with its extended result code and message.
struct SQLiteToolError: Error {
    let message: String
}
