import BenchmarkModels
import DAOKit
import Foundation
import GRDB

/// One engine the query section runs the screen query and its count on: a DAOKit context with or
/// without indexes (through `BaseDao`), or GRDB.
struct QueryEngine {
    /// Names the engine in variant names and `RATIO` lines: `memory`, `files.indexed`, `grdb.disk`.
    let name: String
    let screen: (_ dialog: Int) throws -> [DialogMessage]
    let count: (_ dialog: Int) throws -> Int

    /// `BaseDao` over `context`, with `DialogMessageEntity<Indexing>`.
    static func dao<Indexing: DialogMessageIndexing>(
        _ name: String, _ context: any StorageContext, indexing: Indexing.Type
    ) -> QueryEngine {
        let dao = BaseDao<DialogMessage, DialogMessageEntity<Indexing>>(context: context)
        return QueryEngine(
            name: name,
            screen: { dialog in
                try dao.read(
                    where: ScreenQuery.predicate(dialog: dialog), sortedBy: ScreenQuery.sortOrder,
                    limit: ScreenQuery.pageSize)
            },
            count: { dialog in try dao.count(where: ScreenQuery.predicate(dialog: dialog)) })
    }

    /// GRDB reading `database` with the SQL of ``ScreenQuery``.
    static func grdb(_ name: String, _ database: DatabaseQueue) -> QueryEngine {
        QueryEngine(
            name: name,
            screen: { dialog in
                try database.read { db in
                    try DialogMessage.fetchAll(db, sql: ScreenQuery.screenSQL, arguments: [dialog])
                }
            },
            count: { dialog in
                try database.read { db in try Int.fetchOne(db, sql: ScreenQuery.countSQL, arguments: [dialog]) ?? 0 }
            })
    }
}

/// GRDB's row mapping of the messages: Codable, dates as seconds since 1970 (a `REAL`, exact for
/// the sample's half seconds and ordered by value).
extension DialogMessage: FetchableRecord, PersistableRecord {
    public static var databaseTableName: String { ScreenQuery.tableName }
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .timeIntervalSince1970
    }
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .timeIntervalSince1970
    }

    /// Creates the table and its index on dialog and date, as an app would for the screen query.
    static func createTable(in db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("id", .integer).primaryKey()
            table.column("dialogID", .integer).notNull()
            table.column("date", .double).notNull()
            table.column("text", .text).notNull()
            table.column("senderId", .integer).notNull()
            table.column("receiverId", .integer).notNull()
            table.column("type", .text).notNull()
            table.column("isIncoming", .boolean).notNull()
            table.column("isRead", .boolean).notNull()
            table.column("attachment", .text)
            table.column("note", .text)
        }
        try db.create(index: "dialogMessageByDialogAndDate", on: databaseTableName, columns: ["dialogID", "date"])
    }
}
