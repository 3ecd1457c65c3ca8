import Foundation

/// `dao inspect FILE` for an SQLite store: the database's identity and sizes, each entity
/// table's row count, rows per entity version, size and indexes. Informational: exit status 0 whatever it finds.
struct SQLiteInspectCommand {
    let console: Console

    func run(_ database: SQLiteStoreFile) throws -> Int32 {
        do {
            for line in try Self.report(database) { console.line(line) }
        } catch let error as SQLiteToolError {
            throw CommandFailure("dao inspect: cannot read \(database.path): \(error.message) (run 'dao verify')")
        }
        return ExitStatus.success
    }

    static func report(_ database: SQLiteStoreFile) throws -> [String] {
        func integer(_ sql: String) throws -> Int64 {
            if case .integer(let value)? = try database.rows(sql).first?.first { return value }
            return 0
        }
        func text(_ sql: String) throws -> String {
            if case .text(let value)? = try database.rows(sql).first?.first { return value }
            return "?"
        }
        let pageSize = try integer("PRAGMA page_size")
        let pages = try integer("PRAGMA page_count")
        let free = try integer("PRAGMA freelist_count")
        let walSize = (try? FileManagerSize.of(database.path + "-wal")) ?? nil
        var lines = TextLayout.table([
            ["Store", database.path],
            [
                "Format",
                "DAOKit SQLite layout \(try integer("PRAGMA user_version")), journal mode \(try text("PRAGMA journal_mode"))",
            ],
            [
                "Size",
                "\(TextLayout.byteCount(Int(pageSize * pages))) (\(pages) pages of \(pageSize) bytes, \(free) free)"
                    + (walSize.map { ", write-ahead log \(TextLayout.byteCount($0))" } ?? ""),
            ],
        ])
        lines.append("")
        let tables = try database.entityTables()
        if tables.isEmpty {
            lines.append("No entities yet.")
            return lines
        }
        // Table sizes need the dbstat table, which some SQLite builds leave out.
        let sizes: [String: Int]? = try? Dictionary(
            database.rows("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").compactMap { row in
                if case .text(let name) = row[0], case .integer(let size) = row[1] { return (name, Int(size)) }
                return nil
            }, uniquingKeysWith: +)
        var rows: [[String]] = [["Entity", "Rows", "Versions", "Fields", "Size", "Indexes"]]
        var total = 0
        for table in tables {
            let count = try integer("SELECT count(*) FROM \(SQLiteStoreFile.quoted(table))")
            total += Int(count)
            let indexes = try database.rows(
                "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL"
                    + " AND name NOT LIKE 'daokit\\_version\\_%' ESCAPE '\\' ORDER BY name",
                [table]
            )
            .compactMap { row -> String? in
                guard case .text(let name) = row[0] else { return nil }
                let infos = (try? database.rows("SELECT name FROM pragma_index_info(?) ORDER BY seqno", [name])) ?? []
                let columns: [String] = infos.compactMap { info -> String? in
                    if case .text(let column) = info[0] { return column }
                    return nil
                }
                return "(" + columns.joined(separator: ", ") + ")"
            }
            var size = sizes?[table]
            if let base = size {
                let indexRows = try database.rows(
                    "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ?", [table])
                size =
                    base
                    + indexRows.compactMap { row -> Int? in
                        if case .text(let name) = row[0] { return sizes?[name] }
                        return nil
                    }.reduce(0, +)
            }
            // "1: 8, 3: 16": how many rows each entity version wrote.
            var versions = EntityVersionCounts()
            for (version, rows) in try database.rowsPerVersion(of: table) {
                versions.count(Int(version), times: Int(rows))
            }
            rows.append([
                table, String(count), versions.description,
                String(try database.fieldColumns(of: table).count),
                size.map(TextLayout.byteCount) ?? "-", indexes.isEmpty ? "none" : indexes.joined(separator: " "),
            ])
        }
        rows.append(["Total", String(total), "", "", "", ""])
        lines += TextLayout.table(rows, rightAligned: [1, 3, 4])
        return lines
    }
}

/// A file's size, or `nil` when it does not exist.
enum FileManagerSize {
    static func of(_ path: String) throws -> Int? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        return (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
    }
}
