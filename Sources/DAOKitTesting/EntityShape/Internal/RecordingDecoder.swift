import Foundation

/// What one decoder or container was asked for, resolved into a shape once its `init(from:)` returned.
private enum RecordedSlot {
    case value(EntityShape.Value)
    case keyed(KeyedRecord)
    case unkeyed(UnkeyedRecord)

    func resolved(type: Any.Type, path: [ShapePathComponent], recorder: ShapeRecorder) throws -> EntityShape.Value {
        switch self {
        case .value(let value): return value
        case .keyed(let record): return try record.resolved(type: type, path: path, recorder: recorder)
        case .unkeyed(let record): return try record.resolved(type: type, path: path, recorder: recorder)
        }
    }
}

/// The fields a keyed container was asked for, in the order asked.
private final class KeyedRecord {
    private var names: [String] = []
    private var slots: [String: RecordedSlot] = [:]
    private var optional: Set<String> = []

    /// Notes that `name` may be missing (`contains`, `decodeNil`, `decodeIfPresent` asked for it).
    func noteOptional(_ name: String) {
        add(name)
        optional.insert(name)
    }

    /// Notes what `name` holds; a later request for the same key replaces an earlier one.
    func note(_ name: String, _ slot: RecordedSlot) {
        add(name)
        slots[name] = slot
    }

    private func add(_ name: String) {
        if !names.contains(name) { names.append(name) }
    }

    func resolved(type: Any.Type, path: [ShapePathComponent], recorder: ShapeRecorder) throws -> EntityShape.Value {
        var fields: [EntityShape.Field] = []
        for name in names {
            guard let slot = slots[name] else {
                // Asked only whether it is there (`contains`, `decodeNil`): its kind is unknown.
                throw recorder.unsupported(
                    type, path + [.key(name)],
                    "the key was tested (contains or decodeNil) but never decoded, so its kind is unknown")
            }
            var value = try slot.resolved(type: type, path: path + [.key(name)], recorder: recorder)
            if optional.contains(name) { value.isOptional = true }
            fields.append(EntityShape.Field(name, value))
        }
        return EntityShape.Value(.keyed(fields))
    }
}

/// What an unkeyed container's elements were read as.
private final class UnkeyedRecord {
    var element: RecordedSlot?
    var elementIsOptional = false
    var readCount = 0
    /// Reads begun, failed ones included: a loop over `isAtEnd` that swallows a failed read
    /// (`try?`) still ends.
    var attempts = 0
    var kindsDiffer = false

    func note(_ slot: RecordedSlot) {
        if case .value(let new) = slot, let element, case .value(let old) = element, old.kind != new.kind {
            kindsDiffer = true
        }
        element = slot
        readCount += 1
    }

    func resolved(type: Any.Type, path: [ShapePathComponent], recorder: ShapeRecorder) throws -> EntityShape.Value {
        guard !kindsDiffer else {
            throw recorder.unsupported(
                type, path,
                "its unkeyed container holds elements of different kinds; only arrays of one kind are recorded")
        }
        guard let element else {
            throw recorder.unsupported(
                type, path, "its unkeyed container was read without decoding an element, so its kind is unknown")
        }
        var value = try element.resolved(type: type, path: path + [.element], recorder: recorder)
        if elementIsOptional { value.isOptional = true }
        return EntityShape.Value(.array(value))
    }
}

/// A coding key made of a path component, for `codingPath`.
private struct RecordingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

private func codingPath(_ path: [ShapePathComponent]) -> [any CodingKey] {
    path.map {
        switch $0 {
        case .key(let name): RecordingKey(stringValue: name)
        case .element: RecordingKey(stringValue: "0")
        }
    }
}

/// The decoder handed to a type's `init(from:)`: every container it gives out answers requests
/// with placeholders and notes what was asked.
final class RecordingDecoder: Decoder {
    private let recorder: ShapeRecorder
    private let path: [ShapePathComponent]
    private var slot: RecordedSlot?
    private var singleValueIsOptional = false

    init(recorder: ShapeRecorder, path: [ShapePathComponent]) {
        self.recorder = recorder
        self.path = path
    }

    var codingPath: [any CodingKey] { DAOKitTesting.codingPath(path) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// The shape of what `type`'s `init(from:)` asked for.
    func recordedValue(type: Any.Type) throws -> EntityShape.Value {
        // A type that asks for no container stores nothing: an empty keyed value.
        guard let slot else { return EntityShape.Value(.keyed([])) }
        var value = try slot.resolved(type: type, path: path, recorder: recorder)
        if singleValueIsOptional { value.isOptional = true }
        return value
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let record: KeyedRecord
        if case .keyed(let existing) = slot {
            // A class and its superclass read the same decoder's keyed container: one record.
            record = existing
        } else {
            record = KeyedRecord()
            slot = .keyed(record)
        }
        return KeyedDecodingContainer(RecordingKeyedContainer<Key>(record: record, recorder: recorder, path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let record = UnkeyedRecord()
        slot = .unkeyed(record)
        return RecordingUnkeyedContainer(record: record, recorder: recorder, path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordingSingleValueContainer(decoder: self, recorder: recorder, path: path)
    }

    fileprivate func noteSingleValue(_ value: EntityShape.Value) { slot = .value(value) }
    fileprivate func noteSingleValueOptional() { singleValueIsOptional = true }
}

private struct RecordingKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let record: KeyedRecord
    let recorder: ShapeRecorder
    let path: [ShapePathComponent]

    var codingPath: [any CodingKey] { DAOKitTesting.codingPath(path) }
    /// No keys: a type that enumerates its keys (a dictionary-like type) records no field.
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool {
        record.noteOptional(key.stringValue)
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        record.noteOptional(key.stringValue)
        return false
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let (value, placeholder) = try recorder.record(T.self, path: path + [.key(key.stringValue)])
        record.note(key.stringValue, .value(value))
        return placeholder
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        record.noteOptional(key.stringValue)
        if recorder.isInProgress(T.self) {
            record.note(
                key.stringValue, .value(EntityShape.Value(.recursive(String(describing: T.self)), isOptional: true)))
            return nil
        }
        return try decode(T.self, forKey: key)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try recorded(Bool.self, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try recorded(String.self, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try recorded(Double.self, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try recorded(Float.self, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try recorded(Int.self, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try recorded(Int8.self, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try recorded(Int16.self, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try recorded(Int32.self, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try recorded(Int64.self, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try recorded(UInt.self, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try recorded(UInt8.self, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try recorded(UInt16.self, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try recorded(UInt32.self, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try recorded(UInt64.self, key) }

    /// A leaf read by `decode`: its kind, required.
    private func recorded<T: Decodable>(_ leaf: T.Type, _ key: Key) throws -> T {
        try decode(T.self, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = KeyedRecord()
        record.note(key.stringValue, .keyed(nested))
        return KeyedDecodingContainer(
            RecordingKeyedContainer<NestedKey>(record: nested, recorder: recorder, path: path + [.key(key.stringValue)])
        )
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let nested = UnkeyedRecord()
        record.note(key.stringValue, .unkeyed(nested))
        return RecordingUnkeyedContainer(record: nested, recorder: recorder, path: path + [.key(key.stringValue)])
    }

    func superDecoder() throws -> any Decoder {
        throw recorder.unsupported(Key.self, path, "it reads a super decoder, which the recorder does not follow")
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw recorder.unsupported(
            Key.self, path + [.key(key.stringValue)], "it reads a super decoder, which the recorder does not follow")
    }
}

private struct RecordingUnkeyedContainer: UnkeyedDecodingContainer {
    let record: UnkeyedRecord
    let recorder: ShapeRecorder
    let path: [ShapePathComponent]

    var codingPath: [any CodingKey] { DAOKitTesting.codingPath(path) }
    /// One element, read once: a loop over `isAtEnd` reads one element and stops.
    var count: Int? { 1 }
    var isAtEnd: Bool { record.attempts > 0 }
    var currentIndex: Int { record.readCount }

    mutating func decodeNil() throws -> Bool {
        record.elementIsOptional = true
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        record.attempts += 1
        let (value, placeholder) = try recorder.record(T.self, path: path + [.element])
        record.note(.value(value))
        return placeholder
    }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        record.elementIsOptional = true
        return try decode(T.self)
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try recorded(Bool.self) }
    mutating func decode(_ type: String.Type) throws -> String { try recorded(String.self) }
    mutating func decode(_ type: Double.Type) throws -> Double { try recorded(Double.self) }
    mutating func decode(_ type: Float.Type) throws -> Float { try recorded(Float.self) }
    mutating func decode(_ type: Int.Type) throws -> Int { try recorded(Int.self) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try recorded(Int8.self) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try recorded(Int16.self) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try recorded(Int32.self) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try recorded(Int64.self) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try recorded(UInt.self) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try recorded(UInt8.self) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try recorded(UInt16.self) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try recorded(UInt32.self) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try recorded(UInt64.self) }

    private mutating func recorded<T: Decodable>(_ leaf: T.Type) throws -> T {
        try decode(T.self)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        record.attempts += 1
        let nested = KeyedRecord()
        record.note(.keyed(nested))
        return KeyedDecodingContainer(
            RecordingKeyedContainer<NestedKey>(record: nested, recorder: recorder, path: path + [.element]))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        record.attempts += 1
        let nested = UnkeyedRecord()
        record.note(.unkeyed(nested))
        return RecordingUnkeyedContainer(record: nested, recorder: recorder, path: path + [.element])
    }

    mutating func superDecoder() throws -> any Decoder {
        record.attempts += 1
        throw recorder.unsupported(Any.self, path, "it reads a super decoder, which the recorder does not follow")
    }
}

private struct RecordingSingleValueContainer: SingleValueDecodingContainer {
    let decoder: RecordingDecoder
    let recorder: ShapeRecorder
    let path: [ShapePathComponent]

    var codingPath: [any CodingKey] { DAOKitTesting.codingPath(path) }

    func decodeNil() -> Bool {
        decoder.noteSingleValueOptional()
        return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, placeholder) = try recorder.record(T.self, path: path)
        decoder.noteSingleValue(value)
        return placeholder
    }

    func decode(_ type: Bool.Type) throws -> Bool { try recorded(Bool.self) }
    func decode(_ type: String.Type) throws -> String { try recorded(String.self) }
    func decode(_ type: Double.Type) throws -> Double { try recorded(Double.self) }
    func decode(_ type: Float.Type) throws -> Float { try recorded(Float.self) }
    func decode(_ type: Int.Type) throws -> Int { try recorded(Int.self) }
    func decode(_ type: Int8.Type) throws -> Int8 { try recorded(Int8.self) }
    func decode(_ type: Int16.Type) throws -> Int16 { try recorded(Int16.self) }
    func decode(_ type: Int32.Type) throws -> Int32 { try recorded(Int32.self) }
    func decode(_ type: Int64.Type) throws -> Int64 { try recorded(Int64.self) }
    func decode(_ type: UInt.Type) throws -> UInt { try recorded(UInt.self) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try recorded(UInt8.self) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try recorded(UInt16.self) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try recorded(UInt32.self) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try recorded(UInt64.self) }

    private func recorded<T: Decodable>(_ leaf: T.Type) throws -> T {
        try decode(T.self)
    }
}
