import DAOKit
import DAOKitSQL
import Foundation

/// DAOKit's layout in a PostgreSQL schema, and the SQL expressions queries and indexes share.
///
/// - `daokit_entities(entity_name)`: every entity type with a table, so that ``PostgresStorageContext/reset()``
///   knows what to empty;
/// - `daokit_field_kinds(entity_name, field, kind)`: which ``JSONRecord/FieldKind``s each top-level
///   field has held, written in the transaction that first stores one and never removed, so it
///   is always a superset of what the rows hold;
/// - one table per entity type, named after ``Storable/entityName``:
///   `daokit_key text COLLATE "C" PRIMARY KEY` (the storage key in NFC) and `record jsonb`;
/// - each ``Storable/indexes`` entry as a B-tree on the expressions the query translation uses,
///   `NULLS FIRST` so that one index serves Swift's order both ways (nil first ascending, last
///   descending).
///
/// An index names the expression for a field's kind (a number, a string, a Bool); the kind is
/// taken from the first batch that stores the field, so the index matches what queries compare.
enum PostgresSchema {
    /// The prefix of DAOKit's own tables; an entity type may not be named with it.
    static let reservedPrefix = "daokit_"
    /// The channel of the commit notifications (see `PostgresChangeListener.swift`).
    static let channel = "daokit_changes"

    /// `name` as an SQL identifier.
    static func quoted(_ name: String) -> String {
        SQLQuoting.identifier(name)
    }

    /// `text` as an SQL string literal (for field names inside expressions, which must be
    /// literals for an expression index to match them).
    static func literal(_ text: String) -> String {
        SQLQuoting.literal(text)
    }

    /// The field as `jsonb`.
    static func jsonExpression(_ field: String) -> String {
        "(record -> \(literal(field)))"
    }

    /// The field as text when it holds strings, in byte order.
    static func textExpression(_ field: String) -> String {
        "((record ->> \(literal(field))) COLLATE \"C\")"
    }

    /// The field as `numeric` when it holds a JSON number, else NULL (never an error, so an index
    /// on it accepts any record).
    static func numberExpression(_ field: String) -> String {
        "(CASE WHEN jsonb_typeof(record -> \(literal(field))) = 'number' THEN (record ->> \(literal(field)))::numeric END)"
    }

    /// Whether the field holds a value a query sees as not `nil`, for a field that has held
    /// `kinds`: any JSON value but `null` — a URL with a base is an object — except that a
    /// container is `nil` too; `nil` when the field has held both containers and URLs, which
    /// only Swift tells apart.
    static func isPresent(_ field: String, kinds: Set<JSONRecord.FieldKind>) -> String? {
        if kinds.contains(.container) {
            if kinds.contains(.url) || kinds.contains(.opaque) { return nil }
            return "COALESCE(jsonb_typeof(record -> \(literal(field))) IN ('string', 'number', 'boolean'), FALSE)"
        }
        return "COALESCE(jsonb_typeof(record -> \(literal(field))) <> 'null', FALSE)"
    }

    /// The expression an index uses for a field that holds `kinds`.
    static func indexExpression(_ field: String, kinds: Set<JSONRecord.FieldKind>) -> String {
        if !kinds.isEmpty && kinds.isSubset(of: [.integer, .real, .date, .bigUnsigned, .decimal]) { return numberExpression(field) }
        if !kinds.isEmpty && kinds.isSubset(of: [.asciiString, .string, .uuid]) { return textExpression(field) }
        return jsonExpression(field)
    }

    /// The statements that create the schema and DAOKit's own tables.
    static func bootstrap(schema: String) -> [String] {
        let s = quoted(schema)
        return [
            "CREATE SCHEMA IF NOT EXISTS \(s)",
            "CREATE TABLE IF NOT EXISTS \(s).daokit_entities (entity_name text COLLATE \"C\" PRIMARY KEY)",
            """
            CREATE TABLE IF NOT EXISTS \(s).daokit_field_kinds (entity_name text COLLATE "C", field text COLLATE "C", \
            kind text COLLATE "C", PRIMARY KEY (entity_name, field, kind))
            """,
        ]
    }

    /// The statement that creates an entity's table.
    static func createTable(_ table: String) -> String {
        "CREATE TABLE IF NOT EXISTS \(table) (daokit_key text COLLATE \"C\" PRIMARY KEY, record jsonb NOT NULL)"
    }

    /// The statement that creates a declared index, or `nil` when it names a nested path.
    static func createIndex(_ index: StorageIndex, position: Int, entityName: String, schema: String,
                            kinds: [String: Set<JSONRecord.FieldKind>]) -> String? {
        guard index.fields.allSatisfy({ $0.keys.count == 1 }) else { return nil }
        let columns = index.fields.map { indexExpression($0.keys[0], kinds: kinds[$0.keys[0]] ?? []) + " NULLS FIRST" }
        // Identifiers are at most 63 bytes: the entity name is hashed into the index name.
        let name = "daokit_i\(position)_" + String(stableHash(schema + "\u{0}" + entityName), radix: 16)
        return "CREATE INDEX IF NOT EXISTS \(quoted(name)) ON \(quoted(schema)).\(quoted(entityName)) (\(columns.joined(separator: ", ")))"
    }

    /// FNV-1a: the same in every process, unlike `Hasher`.
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}
