import CSQLite
import DAOKit
import DAOKitSQL
import Foundation

/// Decodes entities straight from SQLite rows: a `Decoder` whose keyed container reads each
/// field from its column with `sqlite3_column_*`, with no intermediate representation, no JSON
/// and no dictionary per row.
///
/// The fence around the fast path: it serves what a synthesized `init(from:)` asks for — a keyed
/// container at the top, fields decoded by key; a field holding a container (a nested struct, an
/// array) is decoded from its column's JSON text with `JSONDecoder`. When an entity asks for
/// anything else at the top (`nestedContainer`, `superDecoder`, a single-value or unkeyed
/// container), the fast decoder throws ``NeedsWholeRowJSON`` and the row is decoded again, whole,
/// from the JSON object its columns spell (``decodeThroughJSON(_:reader:kinds:)``).
enum SQLiteRowDecoding {
    /// One shared decoder: `JSONDecoder` is thread-safe and never reconfigured.
    static let json = JSONDecoder()

    /// Thrown by the fast path for a request only the whole-row JSON path serves.
    struct NeedsWholeRowJSON: Error {}
    /// Thrown by a column decoder asked for a container: the caller decodes the column's JSON text.
    struct NeedsColumnJSON: Error {}

    /// The entity in the reader's current row, which ``SQLiteRowReader/loadRow()`` read.
    /// - Parameter kinds: the kinds of the table's columns, asked for only by the JSON path.
    /// - Throws: a `DecodingError` (or what the entity's `init(from:)` throws).
    /// - Parameter plan: how to read a row of an older entity version (not one that crosses a
    ///   migration step); `nil` for a row of the current one.
    static func decode<E: Decodable>(
        _ type: E.Type, reader: SQLiteRowReader, plan: ResolutionPlan? = nil,
        kinds: () throws -> [String: SQLiteFieldKinds]
    ) throws -> E {
        do {
            guard let plan else { return try E(from: RowDecoder(reader: reader, plan: nil)) }
            // An older row: the row decoder resolves it itself, from the columns under the names
            // they answer to in that version, and the declared defaults.
            return try reader.withNames(of: plan) { try E(from: RowDecoder(reader: reader, plan: plan)) }
        } catch is NeedsWholeRowJSON {
            guard let plan else { return try decodeThroughJSON(E.self, reader: reader, kinds: try kinds()) }
            return try ResolvedDecoding.decode(E.self, plan: plan) {
                try decodeThroughJSON($0, reader: reader, kinds: try kinds())
            }
        }
    }

    /// A value decoded from JSON text, keeping relative URLs (see ``RelativeURLCoding``).
    static func decodeJSON<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        let data = Data(text.utf8)
        return try RelativeURLCoding.decode(
            data, plain: { try json.decode(T.self, from: $0) },
            keepingURLs: { try json.decode(URLKeepingDecodable<T>.self, from: $0).value })
    }

    /// The row as the JSON object `JSONEncoder` would have written for the entity, decoded with
    /// `JSONDecoder`: for entities the fast path does not serve.
    static func decodeThroughJSON<E: Decodable>(
        _ type: E.Type, reader: SQLiteRowReader, kinds: [String: SQLiteFieldKinds]
    ) throws -> E {
        var members: [String] = []
        for (position, name) in reader.names.enumerated() where !reservedColumns.contains(name) {
            let column = Int32(position + 1)
            guard let member = jsonText(reader: reader, column: column, kinds: kinds[name] ?? []) else { continue }
            members.append(try jsonString(name) + ":" + member)
        }
        return try decodeJSON(E.self, from: "{" + members.joined(separator: ",") + "}")
    }

    /// DAOKit's own columns, which are not fields of the entity.
    private static let reservedColumns: Set<String> = Set(
        [SQLiteRowChecksum.columnName] + SQLiteEntityVersions.columnNames)

    /// The JSON text of a column's value, `nil` for NULL (the key is left out).
    private static func jsonText(reader: SQLiteRowReader, column: Int32, kinds: SQLiteFieldKinds) -> String? {
        switch reader.type(column) {
        case SQLITE_INTEGER:
            let number = reader.value(column).integer
            if kinds == .bool || kinds == [.bool, .null] { return number == 0 ? "false" : "true" }
            return String(number)
        case SQLITE_FLOAT:
            let number = reader.value(column).real
            return number.isFinite ? "\(number)" : nil
        case SQLITE_TEXT:
            let text = reader.text(column)
            if kinds.contains(.opaque) || kinds.contains(.bigUnsigned) || kinds.contains(.decimal) { return text }
            if (kinds.contains(.json) || kinds.contains(.url)) && (text.hasPrefix("{") || text.hasPrefix("[")) {
                return text
            }
            return (try? jsonString(text)) ?? "null"
        case SQLITE_BLOB:
            return (try? jsonString(((try? reader.data(column, [])) ?? Data()).base64EncodedString())) ?? "null"
        default:
            return nil
        }
    }

    private static func jsonString(_ string: String) throws -> String {
        String(decoding: try SQLiteRowEncoder.json.encode(string), as: UTF8.self)
    }
}

private struct RowDecoder: Decoder {
    let reader: SQLiteRowReader
    /// The plan of a row of an older version, whose fields the reader's names already map
    /// (``SQLiteRowReader/withNames(of:_:)``): it supplies the defaults of fields such rows lack.
    let plan: ResolutionPlan?
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RowKeyedContainer<Key>(reader: reader, plan: plan))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw SQLiteRowDecoding.NeedsWholeRowJSON() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw SQLiteRowDecoding.NeedsWholeRowJSON()
    }
}

private struct RowKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let reader: SQLiteRowReader
    let plan: ResolutionPlan?
    var codingPath: [any CodingKey] { [] }

    var allKeys: [Key] {
        let stored = reader.names.indices.compactMap { position in
            reader.isNull(Int32(position + 1)) ? nil : Key(stringValue: reader.names[position])
        }
        return stored + (plan?.defaultedFields.compactMap { Key(stringValue: $0) } ?? [])
    }

    func contains(_ key: Key) -> Bool {
        !reader.isNull(reader.column(key.stringValue)) || plan?.defaultIsNil(key.stringValue) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let column = presentColumn(key) else { return plan?.defaultIsNil(key.stringValue) ?? true }
        return reader.isNull(column)
    }

    /// The error of a field the row does not hold.
    private func missing(_ key: Key) -> DecodingError {
        DecodingError.keyNotFound(
            key,
            .init(codingPath: [], debugDescription: "No value associated with key \(key.stringValue.debugDescription)"))
    }

    /// The value of `key` in a row of an older version that lacks it: its declared default.
    /// - Throws: `DecodingError.keyNotFound` when the field has none, as for a current row.
    @inline(__always)
    private func defaultValue<T>(_ key: Key, _ type: T.Type) throws -> T {
        guard let declared = plan?.declaredDefault(of: key.stringValue) else { throw missing(key) }
        if let value = declared.value as? T { return value }
        throw DecodingError.typeMismatch(
            T.self,
            DecodingError.Context(
                codingPath: [key],
                debugDescription:
                    "the default declared for \(plan?.entityName ?? "")'s `\(key.stringValue)` is a \(declared.valueType), "
                    + "but the entity decodes the field as \(T.self)"))
    }

    /// The value of `key` as `read` reads its column, or, in a row of an older version that
    /// lacks it, its declared default.
    @inline(__always)
    private func value<T>(_ key: Key, _ read: (Int32) throws -> T) throws -> T {
        guard let column = presentColumn(key) else { return try defaultValue(key, T.self) }
        return try read(column)
    }

    /// ``value(_:_:)`` for `decodeIfPresent`: `nil` for a NULL column, unless a default applies.
    @inline(__always)
    private func valueIfPresent<T>(_ key: Key, _ read: (Int32) throws -> T) throws -> T? {
        guard let column = presentColumn(key) else {
            guard let isNil = plan?.defaultIsNil(key.stringValue), !isNil else { return nil }
            return try defaultValue(key, T.self)
        }
        return try read(column)
    }

    /// The column of `key` when it holds a value; `nil` when it is NULL or missing.
    @inline(__always)
    private func presentColumn(_ key: Key) -> Int32? {
        guard let column = reader.column(key.stringValue), !reader.isNull(column) else { return nil }
        return column
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(key) { try reader.bool($0, [key]) } }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try value(key) { try reader.string($0, [key]) }
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try value(key) { try reader.double($0, [key]) }
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try value(key) { Float(try reader.double($0, [key])) }
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try value(key) { try reader.integer(Int.self, $0, [key]) }
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try value(key) { try reader.integer(Int8.self, $0, [key]) }
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try value(key) { try reader.integer(Int16.self, $0, [key]) }
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try value(key) { try reader.integer(Int32.self, $0, [key]) }
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try value(key) { try reader.integer(Int64.self, $0, [key]) }
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try value(key) { try reader.integer(UInt.self, $0, [key]) }
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try value(key) { try reader.integer(UInt8.self, $0, [key]) }
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try value(key) { try reader.integer(UInt16.self, $0, [key]) }
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try value(key) { try reader.integer(UInt32.self, $0, [key]) }
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try value(key) { try reader.integer(UInt64.self, $0, [key]) }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try value(key) { try ColumnValue.decode(T.self, reader: reader, column: $0, path: [key]) }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try valueIfPresent(key) { try reader.bool($0, [key]) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try valueIfPresent(key) { try reader.string($0, [key]) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try valueIfPresent(key) { try reader.double($0, [key]) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try valueIfPresent(key) { try reader.integer(Int.self, $0, [key]) }
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try valueIfPresent(key) { try reader.integer(Int64.self, $0, [key]) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try valueIfPresent(key) { try ColumnValue.decode(T.self, reader: reader, column: $0, path: [key]) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw SQLiteRowDecoding.NeedsWholeRowJSON()
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw SQLiteRowDecoding.NeedsWholeRowJSON()
    }
    func superDecoder() throws -> any Decoder { throw SQLiteRowDecoding.NeedsWholeRowJSON() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw SQLiteRowDecoding.NeedsWholeRowJSON() }
}

/// Decoding one column's value as any `Decodable`: the types the row encoder stores as
/// themselves by type check, a type that decodes from a single value (an enum with a raw value)
/// through ``ColumnDecoder``, and a container from the column's JSON text.
private enum ColumnValue {
    static func decode<T: Decodable>(_ type: T.Type, reader: SQLiteRowReader, column: Int32, path: [any CodingKey])
        throws -> T
    {
        if T.self == Date.self { return try reader.date(column, path) as! T }
        if T.self == UUID.self { return try reader.uuid(column, path) as! T }
        if T.self == String.self { return try reader.string(column, path) as! T }
        if T.self == Int.self { return try reader.integer(Int.self, column, path) as! T }
        if T.self == Double.self { return try reader.double(column, path) as! T }
        if T.self == Bool.self { return try reader.bool(column, path) as! T }
        if T.self == URL.self { return try reader.url(column, path) as! T }
        if T.self == Data.self { return try reader.data(column, path) as! T }
        if T.self == Decimal.self { return try reader.decimal(column, path) as! T }
        do {
            return try T(from: ColumnDecoder(reader: reader, column: column, codingPath: path))
        } catch is SQLiteRowDecoding.NeedsColumnJSON {
            return try SQLiteRowDecoding.decodeJSON(T.self, from: try reader.string(column, path))
        }
    }
}

/// The decoder a field's own `init(from:)` gets: a single value (the column), or — when it asks
/// for a container — ``SQLiteRowDecoding/NeedsColumnJSON``, which makes the caller decode the
/// column's JSON text instead.
private struct ColumnDecoder: Decoder, SingleValueDecodingContainer {
    let reader: SQLiteRowReader
    let column: Int32
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        throw SQLiteRowDecoding.NeedsColumnJSON()
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw SQLiteRowDecoding.NeedsColumnJSON() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { reader.isNull(column) }
    func decode(_ type: Bool.Type) throws -> Bool { try reader.bool(column, codingPath) }
    func decode(_ type: String.Type) throws -> String { try reader.string(column, codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try reader.double(column, codingPath) }
    func decode(_ type: Float.Type) throws -> Float { Float(try reader.double(column, codingPath)) }
    func decode(_ type: Int.Type) throws -> Int { try reader.integer(Int.self, column, codingPath) }
    func decode(_ type: Int8.Type) throws -> Int8 { try reader.integer(Int8.self, column, codingPath) }
    func decode(_ type: Int16.Type) throws -> Int16 { try reader.integer(Int16.self, column, codingPath) }
    func decode(_ type: Int32.Type) throws -> Int32 { try reader.integer(Int32.self, column, codingPath) }
    func decode(_ type: Int64.Type) throws -> Int64 { try reader.integer(Int64.self, column, codingPath) }
    func decode(_ type: UInt.Type) throws -> UInt { try reader.integer(UInt.self, column, codingPath) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try reader.integer(UInt8.self, column, codingPath) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try reader.integer(UInt16.self, column, codingPath) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try reader.integer(UInt32.self, column, codingPath) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try reader.integer(UInt64.self, column, codingPath) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try ColumnValue.decode(T.self, reader: reader, column: column, path: codingPath)
    }
}
