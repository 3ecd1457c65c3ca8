import CSQLite
import Foundation

/// Why ``sqliteShell(_:_:)`` could not run its SQL.
package struct SQLiteShellError: Error, CustomStringConvertible {
    package let description: String
}

/// Runs `sql` on the database `file` as another program would (plain SQLite, no DAOKit): how the
/// tests damage a store or make a foreign database.
/// - Throws: ``SQLiteShellError`` naming the file or the statement and SQLite's message.
package func sqliteShell(_ file: URL, _ sql: String) throws {
    var handle: OpaquePointer?
    defer { sqlite3_close_v2(handle) }
    guard sqlite3_open(file.path, &handle) == SQLITE_OK else {
        throw SQLiteShellError(description: "cannot open \(file.path)")
    }
    var message: UnsafeMutablePointer<CChar>?
    let result = sqlite3_exec(handle, sql, nil, nil, &message)
    defer { sqlite3_free(message) }
    guard result == SQLITE_OK else {
        throw SQLiteShellError(description: "\(sql): \(message.map { String(cString: $0) } ?? "error \(result)")")
    }
}
