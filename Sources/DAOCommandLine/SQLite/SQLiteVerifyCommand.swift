import DAOKitSQLite
import Foundation

/// `dao verify FILE` for an SQLite store: SQLite's own `PRAGMA integrity_check`, then the record
/// checks DAOKit's layout calls for — every row against its checksum (``SQLiteRowChecksum``: a
/// row whose bytes changed, its key included), every stored value of a storage class its column's recorded
/// kinds allow (queries rely on them), nested values that parse as JSON, UUIDs that parse, keys
/// in NFC. One line per problem, then a summary; exit status 1 when anything is wrong.
/// It also notes, without counting it a problem, each entity whose newest rows were written by a
/// newer entity version than every other row (``SQLiteEntityVersions``): code of the older
/// version — a rollback, an older instance on the same store — can neither read nor replace them.
struct SQLiteVerifyCommand {
    let console: Console
    /// At most this many lines per kind of problem and column: a damaged table must not bury the rest.
    static let problemsPerCheck = 20

    func run(_ database: SQLiteStoreFile) throws -> Int32 {
        var problems: [String] = []
        var notes: [String] = []
        var rowCount = 0
        var tableCount = 0
        do {
            for row in try database.rows("PRAGMA integrity_check") {
                if case .text(let line) = row.first, line != "ok" {
                    problems.append("\(database.path): integrity_check: \(line)")
                }
            }
            if problems.isEmpty {
                let tables = try database.entityTables()
                tableCount = tables.count
                for table in tables {
                    let (rows, found) = try Self.check(table, in: database)
                    rowCount += rows
                    problems += found
                    if let note = try Self.newestVersionNote(table, in: database) { notes.append(note) }
                }
            }
        } catch {
            problems.append("\(database.path): \(error.message)")
        }
        for problem in problems { console.line(problem) }
        for note in notes { console.line("note: \(note)") }
        let checked = "\(TextLayout.count(tableCount, "entity table")), \(TextLayout.count(rowCount, "row"))"
        if problems.isEmpty {
            console.line("OK: \(database.path) is sound (integrity_check ok; \(checked))")
            return ExitStatus.success
        }
        console.line("\(TextLayout.count(problems.count, "problem")) in \(database.path) (\(checked))")
        return ExitStatus.problems
    }

    /// The note on `table` when rows of several entity versions are stored (``EntityVersionCounts``).
    static func newestVersionNote(_ table: String, in database: SQLiteStoreFile) throws(SQLiteToolError) -> String? {
        var versions = EntityVersionCounts()
        for (version, rows) in try database.rowsPerVersion(of: table) { versions.count(Int(version), times: Int(rows)) }
        return versions.newestVersionNote(location: database.path, entity: table, unit: "row")
    }

    /// The storage classes each recorded kind is stored as.
    private static let classes: [String: String] = [
        "bool": "integer", "integer": "integer", "real": "real", "date": "real", "string": "text", "uuid": "text",
        "url": "text", "decimal": "text", "json": "text", "opaque": "text", "bigUnsigned": "text", "nan": "text",
        "data": "blob",
    ]

    /// The row count of `table` and its problems.
    static func check(_ table: String, in database: SQLiteStoreFile) throws(SQLiteToolError) -> (Int, [String]) {
        let quotedTable = SQLiteStoreFile.quoted(table)
        var problems: [String] = []
        let kinds = try database.kinds(of: table)
        var rowCount = 0
        if case .integer(let count)? = try database.rows("SELECT count(*) FROM \(quotedTable)").first?.first {
            rowCount = Int(count)
        }
        for column in try database.fieldColumns(of: table) {
            let quoted = SQLiteStoreFile.quoted(column)
            let recorded = kinds[column] ?? []
            let allowed = Set(recorded.compactMap { classes[$0] })
            for row in try database.rows(
                "SELECT typeof(\(quoted)), count(*) FROM \(quotedTable) WHERE \(quoted) IS NOT NULL GROUP BY 1")
            {
                guard case .text(let storageClass) = row[0], case .integer(let count) = row[1],
                    !allowed.contains(storageClass)
                else { continue }
                problems.append(
                    "\(database.path): \(table).\(column): \(TextLayout.count(Int(count), "\(storageClass) value")) where "
                        + "daokit_field_kinds records \(recorded.isEmpty ? "no kind" : recorded.sorted().joined(separator: ", ")); "
                        + "queries on it may be answered wrongly")
            }
            if !recorded.isDisjoint(with: ["json", "opaque", "uuid"]) {
                var found = 0
                for row in try database.rows(
                    "SELECT daokit_key, \(quoted) FROM \(quotedTable) WHERE typeof(\(quoted)) = 'text'")
                {
                    guard case .text(let key) = row[0], case .text(let text) = row[1], found < problemsPerCheck else {
                        continue
                    }
                    let isUUID = text.count == 36 && UUID(uuidString: text) != nil
                    let isJSON = (try? JSONParser.parse(Array(text.utf8))) != nil
                    if recorded == ["uuid"] || recorded == ["uuid", "null"]
                        ? !isUUID : !isJSON && !(recorded.contains("uuid") && isUUID)
                    {
                        found += 1
                        problems.append(
                            "\(database.path): \(table) \(key.debugDescription).\(column): \(text.prefix(40).debugDescription) is not "
                                + (recorded.contains("uuid") ? "a UUID" : "JSON"))
                    }
                }
            }
        }
        let (damaged, _) = try database.checksumFailures(of: table)
        for key in damaged.prefix(problemsPerCheck) {
            problems.append(
                "\(database.path): \(table) \(key.debugDescription): \(SQLiteRowChecksum.mismatch.replacingOccurrences(of: " (run 'dao verify')", with: ""))"
            )
        }
        if damaged.count > problemsPerCheck {
            problems.append(
                "\(database.path): \(table): \(damaged.count - problemsPerCheck) more rows whose checksum does not match"
            )
        }
        var unnormalized = 0
        for row in try database.rows("SELECT daokit_key FROM \(quotedTable)") {
            guard case .text(let key) = row[0], unnormalized < problemsPerCheck else { continue }
            if key.utf8.contains(where: { $0 >= 0x80 }) && key != key.precomposedStringWithCanonicalMapping {
                unnormalized += 1
                problems.append(
                    "\(database.path): \(table) \(key.debugDescription): key not in Unicode NFC; the context cannot find it by id"
                )
            }
        }
        return (rowCount, problems)
    }
}
