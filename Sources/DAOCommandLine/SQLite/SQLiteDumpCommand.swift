import Foundation

/// `dao dump FILE ENTITY [KEY]` for an SQLite store: rows as one JSON object keyed by their
/// storage keys, each row an object of its non-NULL fields, in the values the kinds recorded for
/// each column say (a Bool as `true`, nested values as JSON, data as Base64, dates as seconds
/// since 2001-01-01).
struct SQLiteDumpCommand {
    let console: Console

    func run(_ database: SQLiteStoreFile, entity: String, key: String?) throws -> Int32 {
        do {
            let tables = try database.entityTables()
            guard tables.contains(entity) else {
                let list = tables.isEmpty ? "it has none yet" : "its entities are " + tables.joined(separator: ", ")
                throw UsageError("dao dump: no entity named '\(entity)' in \(database.path); \(list)")
            }
            let columns = try database.fieldColumns(of: entity)
            let kinds = try database.kinds(of: entity)
            let selection =
                "SELECT daokit_key, "
                + (columns.isEmpty ? "NULL" : columns.map(SQLiteStoreFile.quoted).joined(separator: ", "))
                + " FROM \(SQLiteStoreFile.quoted(entity))"
            let rows =
                try key.map { try database.rows(selection + " WHERE daokit_key = ?", [$0]) } ?? database.rows(selection)
            if let key, rows.isEmpty {
                throw UsageError("dao dump: no \(entity) record with key \(key.debugDescription) in \(database.path)")
            }
            var members: [JSONMember] = []
            for row in rows {
                guard case .text(let storageKey) = row[0] else { continue }
                var fields: [JSONMember] = []
                for (position, column) in columns.enumerated() {
                    if let value = Self.json(row[position + 1], kinds: kinds[column] ?? []) {
                        fields.append(JSONMember(name: column, value: value))
                    }
                }
                members.append(JSONMember(name: storageKey, value: .object(fields)))
            }
            members.sort { TextLayout.keyPrecedes($0.name, $1.name) }
            console.line(JSONWriter.pretty(.object(members)))
            return ExitStatus.success
        } catch let error as SQLiteToolError {
            throw CommandFailure("dao dump: cannot read \(database.path): \(error.message) (run 'dao verify')")
        }
    }

    /// A column value as JSON; `nil` for NULL (the field is left out, as an absent optional).
    static func json(_ value: SQLiteStoreFile.Value, kinds: Set<String>) -> JSONValue? {
        switch value {
        case .null: return nil
        case .integer(let number):
            return kinds.subtracting(["null"]) == ["bool"] ? .bool(number != 0) : .number(String(number))
        case .real(let number):
            return number.isFinite ? .number("\(number)") : .string("\(number)")
        case .text(let text):
            if !kinds.isDisjoint(with: ["json", "opaque", "url"]), let parsed = try? JSONParser.parse(Array(text.utf8))
            {
                if kinds.contains("url"), case .string = parsed { return .string(text) }
                return parsed
            }
            return .string(text)
        case .blob(let bytes):
            return .string(Data(bytes).base64EncodedString())
        }
    }
}
