import Foundation

/// A field value as a unique index compares it: equal exactly when the values are `==` the way
/// queries compare them (``StorageValue/equal(_:_:)``), and hashable, so that a context finds the
/// record holding a value without comparing it with every other. Numbers of different kinds that
/// are equal in value are one case (`1`, `UInt8(1)` and `1.0` are `.int(1)`), as `-0.0` and `0.0`.
///
/// `nil`, a missing field, a container and `Double.nan` have no unique value: a record holding
/// one takes part in no uniqueness check (SQL's NULLs are distinct; NaN equals nothing).
package enum UniqueScalar: Hashable, Sendable {
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case date(Date)
    case uuid(UUID)
    case url(URL)
    case data(Data)
    case decimal(Decimal)

    /// The unique value of a stored field's value; `nil` for ``StorageValue/null`` and NaN.
    package init?(_ value: StorageValue) {
        switch value {
        case .null: return nil
        case .bool(let value): self = .bool(value)
        case .int(let value): self = .int(value)
        case .uint(let value): self = Self.number(value)
        case .double(let value):
            guard let number = Self.number(value) else { return nil }
            self = number
        case .string(let value): self = .string(value)
        case .date(let value): self = .date(value)
        case .uuid(let value): self = .uuid(value)
        case .url(let value): self = .url(value)
        case .data(let value): self = .data(value)
        case .decimal(let value): self = .decimal(value)
        }
    }

    static func number(_ value: UInt64) -> UniqueScalar {
        value <= UInt64(Int64.max) ? .int(Int64(value)) : .uint(value)
    }

    /// A whole number in the range of `Int64` or `UInt64` is the integer it equals; NaN is none.
    static func number(_ value: Double) -> UniqueScalar? {
        if value.isNaN { return nil }
        guard value == value.rounded(.towardZero) else { return .double(value) }
        if value >= -0x1p63 && value < 0x1p63 { return .int(Int64(value)) }
        if value >= 0 && value < 0x1p64 { return number(UInt64(value)) }
        return .double(value)
    }

    /// The values of one index's fields, or `nil` when one of them has no unique value.
    package static func tuple(_ values: some Sequence<StorageValue>) -> [UniqueScalar]? {
        var tuple: [UniqueScalar] = []
        for value in values {
            guard let scalar = UniqueScalar(value) else { return nil }
            tuple.append(scalar)
        }
        return tuple
    }
}

/// The uniqueness check of contexts that read every record of a type to make it (the key-value
/// and file contexts): given the records a write leaves as they are and the ones it writes, with
/// each one's values per unique index, it throws the violation the write would cause.
package enum UniqueIndexCheck {
    /// A record and the values of each unique index's fields (`nil`: no unique value).
    package struct Entry {
        package let key: String
        package let tuples: [[UniqueScalar]?]

        package init(key: String, tuples: [[UniqueScalar]?]) {
            self.key = key
            self.tuples = tuples
        }
    }

    /// Throws ``StorageError/Code/uniqueViolation`` when, after the write, two records would hold
    /// equal values in one of `indexes` (the unique ones, in the order of each entry's tuples).
    /// - Parameters:
    ///   - kept: the stored records the write does not replace or remove. Two of them holding
    ///     equal values already (the index was declared over data that breaks it) is a violation
    ///     too: the write is refused until the data is put right.
    ///   - written: the records the write stores, one per key, in order.
    package static func check(
        entityName: String, indexes: [StorageIndex], kept: [Entry], written: [Entry]
    ) throws {
        for (position, index) in indexes.enumerated() {
            var holders: [[UniqueScalar]: String] = [:]
            holders.reserveCapacity(kept.count + written.count)
            for entry in kept + written {
                guard let tuple = entry.tuples[position] else { continue }
                if let holder = holders.updateValue(entry.key, forKey: tuple) {
                    throw UniqueIndexViolation.error(
                        entityName: entityName, key: entry.key, index: index, existingKey: holder)
                }
            }
        }
    }
}

/// Reads the values of unique indexes' fields from a stored record, without decoding the entity
/// (which would run its code, which a context must not run under its lock): what a context that
/// stores JSON or property lists compares. Values are compared as stored — in JSON a date as its
/// number of seconds, data as its Base64 text — the same way for every record of a store, so equal
/// values are equal here. The text `"NaN"` is how DAOKit's records store a floating-point NaN, so
/// it has no unique value (a `String` field holding exactly `"NaN"` is not checked either).
package struct StoredUniqueValues: Sendable {
    /// The unique indexes, in the order of the tuples returned.
    package let indexes: [StorageIndex]
    /// Every field of the indexes, each once.
    package let fields: [FieldPath]
    /// For each index, the positions of its fields in ``fields``.
    private let positions: [[Int]]

    /// The reader of `indexes`' values (the unique ones among them).
    package init(indexes: [StorageIndex]) {
        self.indexes = indexes.filter(\.isUnique)
        var fields: [FieldPath] = []
        for index in self.indexes {
            for field in index.fields where !fields.contains(field) { fields.append(field) }
        }
        self.fields = fields
        positions = self.indexes.map { index in index.fields.map { fields.firstIndex(of: $0)! } }
    }

    /// Whether the type has a unique index at all.
    package var isEmpty: Bool { indexes.isEmpty }

    /// The values of each unique index in the entity JSON `json`; each `nil` when the JSON is not
    /// an object or a field has no unique value.
    package func tuples(ofJSON json: Data) -> [[UniqueScalar]?] {
        tuples { try JSONDecoder().decode(UniqueValueProbe.self, from: json) }
    }

    /// The values of each unique index in the probe that `decode` decodes (with the decoder of the
    /// record's format, from where the entity is); each `nil` when it fails or a field has no
    /// unique value.
    package func tuples(decoding decode: () throws -> UniqueValueProbe) -> [[UniqueScalar]?] {
        let values = (try? UniqueValueProbe.$paths.withValue(fields, operation: decode))?.values
        return positions.map { positions in
            guard let values else { return nil }
            var tuple: [UniqueScalar] = []
            for position in positions {
                guard let value = values[position] else { return nil }
                tuple.append(value)
            }
            return tuple
        }
    }
}

/// Decodes the values of a few fields (``paths``, set around the decoding) from an entity's
/// stored form: DAOKit's own `Decodable`, so no entity code runs.
package struct UniqueValueProbe: Decodable {
    /// The fields to read, in order.
    @TaskLocal package static var paths: [FieldPath] = []

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The value of each of ``paths``; `nil` where it has no unique value.
    package let values: [UniqueScalar?]

    package init(from decoder: any Decoder) throws {
        let root = try decoder.container(keyedBy: Key.self)
        values = Self.paths.map { path in (try? Self.value(at: path.keys[...], in: root)) ?? nil }
    }

    private static func value(at keys: ArraySlice<String>, in container: KeyedDecodingContainer<Key>) throws
        -> UniqueScalar?
    {
        let key = Key(keys.first!)
        guard container.contains(key) else { return nil }
        if keys.count > 1 {
            return try value(at: keys.dropFirst(), in: container.nestedContainer(keyedBy: Key.self, forKey: key))
        }
        if try container.decodeNil(forKey: key) { return nil }
        if let value = try? container.decode(Bool.self, forKey: key) { return .bool(value) }
        if let value = try? container.decode(Int64.self, forKey: key) { return .int(value) }
        if let value = try? container.decode(UInt64.self, forKey: key) { return UniqueScalar.number(value) }
        if let value = try? container.decode(Double.self, forKey: key) { return UniqueScalar.number(value) }
        if let value = try? container.decode(String.self, forKey: key) {
            // How DAOKit's JSON records store a NaN, which equals nothing.
            return value == "NaN" ? nil : .string(value)
        }
        // A property list keeps dates and data as themselves.
        if let value = try? container.decode(Date.self, forKey: key) { return .date(value) }
        if let value = try? container.decode(Data.self, forKey: key) { return .data(value) }
        return nil  // an array or an object: no unique value
    }
}
