import DAOKit
import Foundation

extension ContextFactory {
    /// An SQLite database file in a fresh temporary directory.
    static let sqliteFile = ContextFactory(description: "sqlite(file)") {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("daokit-query-sqlite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let context = try SQLiteStorageContext(file: directory.appendingPathComponent("store.sqlite"))
        return Fresh(context: context, cleanUp: { try? FileManager.default.removeItem(at: directory) })
    }

    /// Every context DAOKit ships: in memory, key-value over memory and over `UserDefaults`, files
    /// (JSON records in a fresh temporary directory) and SQLite (a database file).
    static let everyShipped: [ContextFactory] = all + [fileJSON, sqliteFile]

    /// The shipped contexts that evaluate queries on entities in Swift, reading (decoding, and
    /// encoding to read fields) what the query needs — so a record that cannot be read or encoded
    /// fails a query as the full scan does. SQLite is not one: it evaluates on the stored columns
    /// and decodes only the rows a query returns, so such a record fails only the queries that
    /// return it (its own record tests cover that).
    static let evaluatingInSwift: [ContextFactory] = all + [fileJSON]
}
