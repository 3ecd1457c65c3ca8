import Foundation

/// Decodes a record of an older version as the current entity: a layer over the context's own
/// decoder (JSON, property list, an SQLite row) that answers the entity's requests for its
/// top-level fields as the record's ``ResolutionPlan`` says — a renamed field under its old name,
/// an added field with its default, a widened integer converted — and passes everything else
/// through, so the values are exactly what that decoder gives.
package enum ResolvedDecoding {
    /// The plan of the record being decoded, for ``Resolved``'s `init(from:)`, which cannot take
    /// arguments. A task-local value is also a thread's own outside tasks.
    @TaskLocal static var plan: ResolutionPlan?
    /// The storage key of the record being decoded, when its plan crosses a migration step (the
    /// step sees it: ``MigratingRecord/key``).
    @TaskLocal static var key: String?

    /// Runs `decode` — which decodes a ``Resolved`` through the context's decoder — with `plan`,
    /// and returns the entity.
    /// - Parameter key: the record's storage key, for a migration step; asked for only when the
    ///   plan crosses one.
    package static func decode<E: Decodable>(
        _ type: E.Type, plan: ResolutionPlan, key: @autoclosure () -> String = "",
        _ decode: (Resolved<E>.Type) throws -> Resolved<E>
    ) throws -> E {
        guard plan.steps != nil else { return try $plan.withValue(plan) { try decode(Resolved<E>.self).value } }
        return try $key.withValue(key()) { try $plan.withValue(plan) { try decode(Resolved<E>.self).value } }
    }
}

extension ResolvedDecoding {
    /// `E` decoded by `decoder` — a context's own decoder of a whole record, such as an SQLite
    /// row's — as a record of the plan's version: the same as ``Resolved``, without the
    /// task-local value and the wrapper, which cost more than a row's own decoding. Not for a
    /// plan that crosses a migration step (``ResolutionPlan/crossesMigrationStep``).
    package static func decode<E: Decodable>(_ type: E.Type, plan: ResolutionPlan, from decoder: any Decoder) throws
        -> E
    {
        try E(from: ResolvingDecoder(base: decoder, plan: plan))
    }
}

/// An entity decoded through a record's ``ResolutionPlan`` (see ``ResolvedDecoding``).
package struct Resolved<E: Decodable>: Decodable {
    package let value: E

    package init(from decoder: any Decoder) throws {
        guard let plan = ResolvedDecoding.plan else {
            value = try E(from: decoder)
            return
        }
        if plan.steps != nil {
            // A record older than a migration step: read whole, rewritten step by step, then
            // decoded (RecordMigration). A failed step is a failure to decode this record.
            let key = ResolvedDecoding.key ?? ""
            do {
                value = try ResolvedDecoding.$plan.withValue(nil) {
                    try RecordMigration.entity(E.self, from: try RecordTree(from: decoder), plan: plan, key: key)
                }
            } catch {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: decoder.codingPath, debugDescription: "\(error)", underlyingError: error))
            }
            return
        }
        // The entity's nested values decode without the plan: only top-level fields change.
        value = try ResolvedDecoding.$plan.withValue(nil) {
            try E(from: ResolvingDecoder(base: decoder, plan: plan))
        }
    }
}

/// A coding key of any name, for the base decoder's container.
struct StoredFieldKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private struct ResolvingDecoder: Decoder {
    let base: any Decoder
    let plan: ResolutionPlan

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(
            ResolvingKeyedContainer<Key>(base: try base.container(keyedBy: StoredFieldKey.self), plan: plan))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { try base.unkeyedContainer() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { try base.singleValueContainer() }
}

private struct ResolvingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let base: KeyedDecodingContainer<StoredFieldKey>
    let plan: ResolutionPlan

    var codingPath: [any CodingKey] { base.codingPath }

    var allKeys: [Key] {
        var names = base.allKeys.map { plan.currentNames[$0.stringValue] ?? $0.stringValue }
        for (name, field) in plan.fields {
            if case .defaulted = field { names.append(name) }
        }
        return names.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        switch plan.fields[key.stringValue] {
        case nil: base.contains(StoredFieldKey(key.stringValue))
        case .stored(let name, _): base.contains(StoredFieldKey(name))
        case .defaulted: true
        }
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        switch plan.fields[key.stringValue] {
        case nil: try base.decodeNil(forKey: StoredFieldKey(key.stringValue))
        case .stored(let name, _): try base.decodeNil(forKey: StoredFieldKey(name))
        case .defaulted(let value, _): isNil(value)
        }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try value(key) { try base.decode(T.self, forKey: $0) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try valueIfPresent(key) { try base.decodeIfPresent(T.self, forKey: $0) }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try value(key) { try base.decode(Bool.self, forKey: $0) }
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try value(key) { try base.decode(String.self, forKey: $0) }
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try value(key) { try base.decode(Double.self, forKey: $0) }
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try value(key) { try base.decode(Float.self, forKey: $0) }
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try value(key) { try base.decode(Int.self, forKey: $0) }
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try value(key) { try base.decode(Int8.self, forKey: $0) }
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try value(key) { try base.decode(Int16.self, forKey: $0) }
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try value(key) { try base.decode(Int32.self, forKey: $0) }
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try value(key) { try base.decode(Int64.self, forKey: $0) }
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try value(key) { try base.decode(UInt.self, forKey: $0) }
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try value(key) { try base.decode(UInt8.self, forKey: $0) }
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try value(key) { try base.decode(UInt16.self, forKey: $0) }
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try value(key) { try base.decode(UInt32.self, forKey: $0) }
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try value(key) { try base.decode(UInt64.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try valueIfPresent(key) { try base.decodeIfPresent(Bool.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try valueIfPresent(key) { try base.decodeIfPresent(String.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try valueIfPresent(key) { try base.decodeIfPresent(Double.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try valueIfPresent(key) { try base.decodeIfPresent(Float.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try valueIfPresent(key) { try base.decodeIfPresent(Int.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try valueIfPresent(key) { try base.decodeIfPresent(Int8.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try valueIfPresent(key) { try base.decodeIfPresent(Int16.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try valueIfPresent(key) { try base.decodeIfPresent(Int32.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try valueIfPresent(key) { try base.decodeIfPresent(Int64.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try valueIfPresent(key) { try base.decodeIfPresent(UInt.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try valueIfPresent(key) { try base.decodeIfPresent(UInt8.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try valueIfPresent(key) { try base.decodeIfPresent(UInt16.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try valueIfPresent(key) { try base.decodeIfPresent(UInt32.self, forKey: $0) }
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try valueIfPresent(key) { try base.decodeIfPresent(UInt64.self, forKey: $0) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try base.nestedContainer(keyedBy: NestedKey.self, forKey: try storedKey(key))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try base.nestedUnkeyedContainer(forKey: try storedKey(key))
    }

    func superDecoder() throws -> any Decoder { try base.superDecoder() }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try base.superDecoder(forKey: try storedKey(key))
    }

    /// The key a field that is stored (not defaulted) has in the record.
    private func storedKey(_ key: Key) throws -> StoredFieldKey {
        switch plan.fields[key.stringValue] {
        case nil: return StoredFieldKey(key.stringValue)
        case .stored(let name, _): return StoredFieldKey(name)
        case .defaulted:
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription:
                        "\(plan.entityName)'s `\(key.stringValue)` was added after version \(plan.storedVersion) "
                        + "with a default; decode it with decode(_:forKey:) to read the default"))
        }
    }

    private func value<T>(_ key: Key, _ read: (StoredFieldKey) throws -> T) throws -> T {
        switch plan.fields[key.stringValue] {
        case nil: return try read(StoredFieldKey(key.stringValue))
        case .stored(let name, let widened):
            guard widened else { return try read(StoredFieldKey(name)) }
            do {
                return try read(StoredFieldKey(name))
            } catch let error as DecodingError {
                if let converted = try widenedInteger(T.self, StoredFieldKey(name)) { return converted }
                throw error
            }
        case .defaulted(let value, let valueType):
            if let value = value as? T { return value }
            throw mismatch(key, T.self, valueType)
        }
    }

    private func valueIfPresent<T>(_ key: Key, _ read: (StoredFieldKey) throws -> T?) throws -> T? {
        switch plan.fields[key.stringValue] {
        case .defaulted(let value, let valueType):
            if isNil(value) { return nil }
            if let value = value as? T { return value }
            throw mismatch(key, T.self, valueType)
        default:
            return try value(key, read)
        }
    }

    /// An integer stored before the field was widened to a floating-point type, converted.
    private func widenedInteger<T>(_ type: T.Type, _ key: StoredFieldKey) throws -> T? {
        if T.self == Double.self, let integer = try? base.decode(Int64.self, forKey: key) {
            return Double(integer) as? T
        }
        if T.self == Float.self, let integer = try? base.decode(Int64.self, forKey: key) {
            return Float(integer) as? T
        }
        return nil
    }

    private func mismatch<T>(_ key: Key, _ type: T.Type, _ valueType: String) -> DecodingError {
        DecodingError.typeMismatch(
            T.self,
            DecodingError.Context(
                codingPath: codingPath + [key],
                debugDescription:
                    "the default declared for \(plan.entityName)'s `\(key.stringValue)` is a \(valueType), "
                    + "but the entity decodes the field as \(T.self)"))
    }
}

/// Whether `value` is an optional holding nothing.
func isNil(_ value: Any) -> Bool {
    let mirror = Mirror(reflecting: value)
    return mirror.displayStyle == .optional && mirror.children.isEmpty
}
