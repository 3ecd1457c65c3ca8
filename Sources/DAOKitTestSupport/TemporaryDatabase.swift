import CSQLite
import DAOKit
import DAOKitSQLite
import Foundation

/// A database file in a fresh temporary directory of its own, removed (with its `-wal` and `-shm`)
/// by ``remove()``: what the SQLite context's and the `dao` tool's tests run on.
package struct TemporaryDatabase {
    package let directory: URL
    package var file: URL { directory.appendingPathComponent("store.sqlite") }

    package init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daokit-sqlite-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    /// A context on the database file.
    package func open() throws -> SQLiteStorageContext { try SQLiteStorageContext(file: file) }

    package func remove() { try? FileManager.default.removeItem(at: directory) }
}
