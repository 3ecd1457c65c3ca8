import Foundation

/// Checks, the first time an entity is used, that its declared defaults fit the fields they are
/// for: it runs the entity's `init(from:)` against a decoder that answers every request with a
/// placeholder (or the declared default) and writes down the type each top-level field is asked
/// as. A default of another type, or a default or rename for a field the entity never asks for
/// (and no later step removed), is an ``StorageError/Code/invalidSchema`` naming the field.
///
/// A type whose decoding rejects the placeholders (a validation across fields, say) ends the run
/// early: what was asked until then is still checked, and the resolving decoder still refuses a
/// default of the wrong type when a record needs it, so a wrong value is never read.
enum FieldTypeCheck {
    static func check<E: Storable>(_ type: E.Type, plans: [ResolutionPlan], schema: EntitySchema) throws(StorageError) {
        guard let oldest = plans.first, !oldest.fields.isEmpty else { return }
        let recorder = FieldRecorder(plan: oldest)
        let completed: Bool
        do {
            _ = try E(from: RecordingDecoder(recorder: recorder))
            completed = true
        } catch let mismatch as DefaultMismatch {
            throw StorageError(.invalidSchema(mismatch.detail), entityName: E.entityName)
        } catch {
            completed = false
        }
        guard completed else { return }
        var removed: Set<String> = []
        for changes in schema.steps.values {
            for change in changes { if case .removed(let field) = change.kind { removed.insert(field) } }
        }
        for name in oldest.fields.keys.sorted() where !recorder.asked.contains(name) && !removed.contains(name) {
            throw StorageError(
                .invalidSchema(
                    "`\(name)` is declared as added or renamed, but \(E.entityName) does not decode a field of "
                        + "that name; name fields by their coding keys"),
                entityName: E.entityName)
        }
    }
}

/// A default that does not fit the type its field is decoded as.
private struct DefaultMismatch: Error {
    let detail: String
}

/// What a run of the entity's `init(from:)` asked. Used by one thread, for one run.
private final class FieldRecorder {
    let plan: ResolutionPlan
    var asked: Set<String> = []

    init(plan: ResolutionPlan) { self.plan = plan }

    /// The declared default of `name` as a `T`, `nil` when the field has none.
    /// - Throws: ``DefaultMismatch`` when it has one of another type.
    func field<T>(_ name: String, _ type: T.Type, optional: Bool) throws -> T? {
        asked.insert(name)
        guard case .defaulted(let value, let valueType) = plan.fields[name] else { return nil }
        if optional, isNil(value) { return nil }
        if let value = value as? T { return value }
        throw DefaultMismatch(
            detail: "the default declared for `\(name)` is a \(valueType), but \(plan.entityName) decodes "
                + "`\(name)` as \(optional ? "\(T.self)?" : "\(T.self)")")
    }
}

private struct RecordingDecoder: Decoder {
    let recorder: FieldRecorder
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(RecordingKeyedContainer<Key>(recorder: recorder))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { try Placeholder().unkeyedContainer() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { try Placeholder().singleValueContainer() }
}

private struct RecordingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recorder: FieldRecorder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool {
        recorder.asked.insert(key.stringValue)
        return true
    }
    func decodeNil(forKey key: Key) throws -> Bool {
        recorder.asked.insert(key.stringValue)
        return false
    }
    private func field<T>(_ key: Key, _ type: T.Type, optional: Bool) throws -> T? {
        try recorder.field(key.stringValue, T.self, optional: optional)
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try field(key, Bool.self, optional: false) ?? false
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try field(key, String.self, optional: false) ?? ""
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try field(key, Double.self, optional: false) ?? 0
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try field(key, Float.self, optional: false) ?? 0
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try field(key, Int.self, optional: false) ?? 0
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try field(key, Int8.self, optional: false) ?? 0
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try field(key, Int16.self, optional: false) ?? 0
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try field(key, Int32.self, optional: false) ?? 0
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try field(key, Int64.self, optional: false) ?? 0
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try field(key, UInt.self, optional: false) ?? 0
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try field(key, UInt8.self, optional: false) ?? 0
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try field(key, UInt16.self, optional: false) ?? 0
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try field(key, UInt32.self, optional: false) ?? 0
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try field(key, UInt64.self, optional: false) ?? 0
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        if let value = try field(key, T.self, optional: false) { return value }
        return try Placeholder.value(T.self)
    }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try field(key, Bool.self, optional: true)
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try field(key, String.self, optional: true)
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try field(key, Double.self, optional: true)
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try field(key, Float.self, optional: true)
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try field(key, Int.self, optional: true)
    }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? {
        try field(key, Int8.self, optional: true)
    }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? {
        try field(key, Int16.self, optional: true)
    }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? {
        try field(key, Int32.self, optional: true)
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try field(key, Int64.self, optional: true)
    }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? {
        try field(key, UInt.self, optional: true)
    }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? {
        try field(key, UInt8.self, optional: true)
    }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? {
        try field(key, UInt16.self, optional: true)
    }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? {
        try field(key, UInt32.self, optional: true)
    }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? {
        try field(key, UInt64.self, optional: true)
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try field(key, T.self, optional: true)
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        recorder.asked.insert(key.stringValue)
        return try Placeholder().container(keyedBy: NestedKey.self)
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        recorder.asked.insert(key.stringValue)
        return try Placeholder().unkeyedContainer()
    }
    func superDecoder() throws -> any Decoder { Placeholder() }
    func superDecoder(forKey key: Key) throws -> any Decoder {
        recorder.asked.insert(key.stringValue)
        return Placeholder()
    }
}

/// A decoder that answers everything with an empty or zero value: nested values of the recording
/// run, which only looks at the entity's own fields.
private struct Placeholder: Decoder, SingleValueDecodingContainer, UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }

    /// A placeholder `T`: values of the types Foundation decodes specially, the first case of a
    /// `CaseIterable` type, or what `T`'s `init(from:)` makes of empty values.
    static func value<T: Decodable>(_ type: T.Type) throws -> T {
        if let value = special(T.self) { return value }
        if let iterable = T.self as? any CaseIterable.Type, let first = firstCase(iterable) as? T { return first }
        return try T(from: Placeholder())
    }

    private static func special<T>(_ type: T.Type) -> T? {
        switch T.self {
        case is URL.Type: URL(string: "placeholder:") as? T
        case is UUID.Type: UUID() as? T
        case is Date.Type: Date(timeIntervalSinceReferenceDate: 0) as? T
        case is Data.Type: Data() as? T
        case is Decimal.Type: Decimal() as? T
        default: nil
        }
    }

    private static func firstCase<C: CaseIterable>(_ type: C.Type) -> Any? { C.allCases.first }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(PlaceholderKeyed<Key>())
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { self }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    func decodeNil() -> Bool { false }
    func decode(_ type: Bool.Type) throws -> Bool { false }
    func decode(_ type: String.Type) throws -> String { "" }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try Self.value(T.self) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    { try container(keyedBy: NestedKey.self) }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { self }
    mutating func superDecoder() throws -> any Decoder { self }
}

private struct PlaceholderKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { false }
    func decodeNil(forKey key: Key) throws -> Bool { true }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try Placeholder.value(T.self) }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    { KeyedDecodingContainer(PlaceholderKeyed<NestedKey>()) }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { Placeholder() }
    func superDecoder() throws -> any Decoder { Placeholder() }
    func superDecoder(forKey key: Key) throws -> any Decoder { Placeholder() }
}
