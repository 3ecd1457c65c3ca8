import CSQLite
import DAOKit
import Foundation
import Testing

/// A database file in a fresh temporary directory, removed (with its `-wal` and `-shm`) by
/// ``remove()``.
struct TemporaryDatabase {
    let directory: URL
    var file: URL { directory.appendingPathComponent("store.sqlite") }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sqlite-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func open() throws -> SQLiteStorageContext { try SQLiteStorageContext(file: file) }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

/// Runs `sql` on the database `file` as another program would (plain SQLite, no DAOKit): how the
/// tests damage a store or make a foreign database.
func sqliteShell(_ file: URL, _ sql: String) throws {
    var handle: OpaquePointer?
    defer { sqlite3_close_v2(handle) }
    try #require(sqlite3_open(file.path, &handle) == SQLITE_OK, "cannot open \(file.path)")
    var message: UnsafeMutablePointer<CChar>?
    let result = sqlite3_exec(handle, sql, nil, nil, &message)
    defer { sqlite3_free(message) }
    try #require(result == SQLITE_OK, "\(sql): \(message.map { String(cString: $0) } ?? "")")
}
