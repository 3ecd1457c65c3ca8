import DAOKit
import Foundation

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
