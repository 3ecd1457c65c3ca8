import DAOKit
import Foundation

/// An entity's top-level fields as column values: what one row of its table holds.
package struct SQLiteEncodedRow {
    /// The coding keys, in the order `encode(to:)` wrote them.
    package var names: [String] = []
    package var values: [SQLiteValue] = []
    /// The kind of each value (one bit each).
    package var kinds: [SQLiteFieldKinds] = []

    package mutating func append(_ name: String, _ value: SQLiteValue, _ kind: SQLiteFieldKinds) {
        if let existing = names.firstIndex(of: name) {  // a key written twice keeps the last value, as in JSON
            values[existing] = value
            kinds[existing] = kind
            return
        }
        names.append(name)
        values.append(value)
        kinds.append(kind)
    }
}

/// Turns an entity into a row: each top-level field becomes a column value of the kind that
/// keeps it exactly (see ``SQLiteFieldKinds``); a nested container becomes JSON text.
///
/// The fast path is an `Encoder` that only accepts a keyed container at the top (every
/// synthesized `Codable` struct or class). An entity that encodes otherwise — a single value, an
/// array, `nestedContainer` or `superEncoder` at the top — is encoded with `JSONEncoder` instead
/// and each top-level value kept as JSON text of kind ``SQLiteFieldKinds/opaque``, which queries
/// evaluate in Swift (see `SQLiteRowDecoder.swift` for the way back).
package enum SQLiteRowEncoder {
    /// One shared encoder: `JSONEncoder` is thread-safe and never reconfigured.
    package static let json: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// The row for `entity`.
    /// - Throws: what the entity's `encode(to:)` or `JSONEncoder` throws.
    package static func row<E: Encodable>(of entity: E) throws -> SQLiteEncodedRow {
        let sink = RowSink()
        try entity.encode(to: RowEncoder(sink: sink))
        if !sink.needsFallback { return sink.row }
        return try fallbackRow(of: entity)
    }

    /// The column value and kind of a field's value.
    package static func column(_ value: StorageValue) -> (SQLiteValue, SQLiteFieldKinds) {
        switch value {
        case .null: return (.null, .null)
        case .bool(let flag): return (.integer(flag ? 1 : 0), .bool)
        case .int(let number): return (.integer(number), .integer)
        case .uint(let number):
            return number <= UInt64(Int64.max)
                ? (.integer(Int64(number)), .integer) : (.text(String(number)), .bigUnsigned)
        case .double(let number): return number.isNaN ? (.text("NaN"), .nan) : (.real(number), .real)
        case .string(let string): return (.text(string), .string)
        case .date(let date):
            // SQLite stores a NaN REAL as NULL, which would read back as a nil `Date?`: NaN text,
            // as for a `Double` (a date column holding it is then compared in Swift).
            let seconds = date.timeIntervalSinceReferenceDate
            return seconds.isNaN ? (.text("NaN"), .nan) : (.real(seconds), .date)
        case .uuid(let uuid): return (.text(uuid.uuidString), .uuid)
        case .url(let url):
            if let relative = RelativeURLCoding.relative(url), let text = try? json.encode(relative) {
                return (.text(String(decoding: text, as: UTF8.self)), .url)
            }
            return (.text(url.absoluteString), .url)
        case .data(let data): return (.blob(data), .data)
        case .decimal(let decimal): return (.text(decimal.description), .decimal)
        }
    }

    /// A field value the fast path cannot keep as one column value: JSON text.
    /// - Throws: ``NestingLimitError`` naming the path from the entity, through `key`, when the
    ///   value nests deeper than JSON holds; what its `encode(to:)` throws.
    package static func jsonColumn<T: Encodable>(_ value: T, key: any CodingKey) throws -> SQLiteValue {
        let text = try JSONNesting.encode(URLKeepingEncodable(value: value), with: json, entity: value, prefix: [key])
        return .text(String(decoding: text, as: UTF8.self))
    }

    /// The row of an entity the fast path refused: its `JSONEncoder` object, one column per key,
    /// each holding its value's JSON text.
    private static func fallbackRow<E: Encodable>(of entity: E) throws -> SQLiteEncodedRow {
        let data = try JSONNesting.encode(URLKeepingEncodable(value: entity), with: json, entity: entity)
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw EncodingError.invalidValue(
                entity,
                .init(
                    codingPath: [],
                    debugDescription:
                        "SQLiteStorageContext stores an entity as a row of fields; this one does not encode as a keyed container"
                ))
        }
        var row = SQLiteEncodedRow()
        for key in object.keys.sorted() {
            let value = object[key]!
            if value is NSNull {
                row.append(key, .null, .null)
                continue
            }
            let text = try JSONSerialization.data(
                withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])
            row.append(key, .text(String(decoding: text, as: UTF8.self)), .opaque)
        }
        return row
    }
}

/// Where the fast path's containers write.
private final class RowSink {
    var row = SQLiteEncodedRow()
    /// Set when the entity does something the fast path does not keep (see ``SQLiteRowEncoder``).
    var needsFallback = false
}

private struct RowEncoder: Encoder {
    let sink: RowSink
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(RowKeyedContainer<Key>(sink: sink))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        sink.needsFallback = true
        return IgnoringUnkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        sink.needsFallback = true
        return IgnoringSingleValueContainer()
    }
}

private struct RowKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: RowSink
    var codingPath: [any CodingKey] { [] }

    @inline(__always)
    private func put(_ value: SQLiteValue, _ kind: SQLiteFieldKinds, _ key: Key) {
        sink.row.append(key.stringValue, value, kind)
    }

    mutating func encodeNil(forKey key: Key) throws { put(.null, .null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.integer(value ? 1 : 0), .bool, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.text(value), .string, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { encodeReal(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { encodeReal(Double(value), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { put(.integer(Int64(value)), .integer, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { put(.integer(Int64(value)), .integer, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { put(.integer(Int64(value)), .integer, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { put(.integer(Int64(value)), .integer, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { put(.integer(value), .integer, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { encodeUnsigned(UInt64(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { put(.integer(Int64(value)), .integer, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { put(.integer(Int64(value)), .integer, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { put(.integer(Int64(value)), .integer, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { encodeUnsigned(value, key) }

    private func encodeReal(_ value: Double, _ key: Key) {
        let (column, kind) = SQLiteRowEncoder.column(.double(value))
        put(column, kind, key)
    }

    private func encodeUnsigned(_ value: UInt64, _ key: Key) {
        let (column, kind) = SQLiteRowEncoder.column(.uint(value))
        put(column, kind, key)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        // Values the mapper keeps as themselves (Date, UUID, URL, Data, Decimal, numbers), then
        // values that encode as one of those (an enum's raw value), then containers as JSON.
        if let scalar = StorageValue(primitive: value) ?? FieldExtractor.scalar(of: value) {
            let (column, kind) = SQLiteRowEncoder.column(scalar)
            put(column, kind, key)
        } else {
            put(try SQLiteRowEncoder.jsonColumn(value, key: key), .json, key)
        }
    }

    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        sink.needsFallback = true
        return KeyedEncodingContainer(IgnoringKeyedContainer<NestedKey>())
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        sink.needsFallback = true
        return IgnoringUnkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        sink.needsFallback = true
        return IgnoringEncoder()
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        sink.needsFallback = true
        return IgnoringEncoder()
    }
}

// Containers that drop what they are given: the fast path hands them out once it knows the
// entity will be encoded again through JSON.

private struct IgnoringEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(IgnoringKeyedContainer<Key>())
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { IgnoringUnkeyedContainer() }
    func singleValueContainer() -> any SingleValueEncodingContainer { IgnoringSingleValueContainer() }
}

private struct IgnoringKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil(forKey key: Key) throws {}
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {}
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(IgnoringKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { IgnoringUnkeyedContainer() }
    mutating func superEncoder() -> any Encoder { IgnoringEncoder() }
    mutating func superEncoder(forKey key: Key) -> any Encoder { IgnoringEncoder() }
}

private struct IgnoringUnkeyedContainer: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0
    mutating func encodeNil() throws { count += 1 }
    mutating func encode<T: Encodable>(_ value: T) throws { count += 1 }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        count += 1
        return KeyedEncodingContainer(IgnoringKeyedContainer<NestedKey>())
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return IgnoringUnkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { IgnoringEncoder() }
}

private struct IgnoringSingleValueContainer: SingleValueEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}
