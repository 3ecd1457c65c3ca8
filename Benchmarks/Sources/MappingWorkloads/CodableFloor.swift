import BenchmarkModels
import Foundation

/// A coder pair that does none of a mapper's work — it stores nothing and reads back constants —
/// while making every Codable call a real conversion makes: the containers, one call per field,
/// `key.stringValue`, nested values through their own `encode(to:)`/`init(from:)`.
///
/// What it costs is a lower bound for any Codable-based converter on this toolchain, because the
/// standard library's container boxes, protocol dispatch and generic metadata lookups are paid
/// whatever the coder does. (It is a *lower* bound: optionals read back as absent, so a `URL?`
/// costs it nothing.) `ratios floor` compares it with the hand-written translator, to show how much
/// of the mapper's time is Codable's own.
public enum CodableFloor {
    /// Message → MessageEntity through the do-nothing coders.
    public static func entity(from message: Message) throws -> MessageEntity {
        try message.encode(to: encoder)
        return try MessageEntity(from: decoder)
    }

    /// MessageEntity → Message through the do-nothing coders.
    public static func plain(from entity: MessageEntity) throws -> Message {
        try entity.encode(to: encoder)
        return try Message(from: decoder)
    }

    // One pair for the whole process, as a mapper reuses its coders; they have no state.
    private nonisolated(unsafe) static let encoder = FloorEncoder()
    private nonisolated(unsafe) static let decoder = FloorDecoder()
}

/// Keeps a key's name from being optimized away, as a real coder would use it.
@inline(never)
private func touch(_ name: String) {}

private final class FloorEncoder: Encoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(FloorKeyedEncoding<Key>(encoder: self))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { FloorUnkeyedEncoding(encoder: self) }
    func singleValueContainer() -> any SingleValueEncodingContainer { FloorSingleValueEncoding(encoder: self) }
}

private struct FloorKeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    unowned(unsafe) let encoder: FloorEncoder
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil(forKey key: Key) throws { touch(key.stringValue) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { touch(key.stringValue) }
    mutating func encode(_ value: String, forKey key: Key) throws { touch(key.stringValue) }
    mutating func encode(_ value: Double, forKey key: Key) throws { touch(key.stringValue) }
    mutating func encode(_ value: Int, forKey key: Key) throws { touch(key.stringValue) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        touch(key.stringValue)
        // Values a mapper carries as they are; everything else goes through its own encode(to:).
        if T.self == Date.self || T.self == URL.self { return }
        try value.encode(to: encoder)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FloorKeyedEncoding<NestedKey>(encoder: encoder))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { FloorUnkeyedEncoding(encoder: encoder) }
    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

private struct FloorUnkeyedEncoding: UnkeyedEncodingContainer {
    let encoder: FloorEncoder
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }
    mutating func encodeNil() throws {}
    mutating func encode<T: Encodable>(_ value: T) throws { try value.encode(to: encoder) }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FloorKeyedEncoding<NestedKey>(encoder: encoder))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    mutating func superEncoder() -> any Encoder { encoder }
}

private struct FloorSingleValueEncoding: SingleValueEncodingContainer {
    let encoder: FloorEncoder
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode(_ value: String) throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}

private final class FloorDecoder: Decoder {
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(FloorKeyedDecoding<Key>(decoder: self))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { FloorUnkeyedDecoding() }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { FloorSingleValueDecoding() }
}

private struct FloorKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    unowned(unsafe) let decoder: FloorDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { touch(key.stringValue); return false }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { touch(key.stringValue); return "" }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { touch(key.stringValue); return 0 }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { touch(key.stringValue); return 0 }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { touch(key.stringValue); return nil }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { touch(key.stringValue); return nil }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        touch(key.stringValue)
        if T.self == Date.self { return Date(timeIntervalSinceReferenceDate: 0) as! T }
        return try T(from: decoder)
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        KeyedDecodingContainer(FloorKeyedDecoding<NestedKey>(decoder: decoder))
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { FloorUnkeyedDecoding() }
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}

/// An empty array.
private struct FloorUnkeyedDecoding: UnkeyedDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    var count: Int? { 0 }
    var isAtEnd: Bool { true }
    var currentIndex: Int { 0 }
    mutating func decodeNil() throws -> Bool { false }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        throw DecodingError.valueNotFound(T.self, .init(codingPath: [], debugDescription: "empty"))
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        throw DecodingError.valueNotFound(NestedKey.self, .init(codingPath: [], debugDescription: "empty"))
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { self }
    mutating func superDecoder() throws -> any Decoder { FloorDecoder() }
}

/// Reads every single value as the first `MessageType` raw value, the only one the models need.
private struct FloorSingleValueDecoding: SingleValueDecodingContainer {
    var codingPath: [any CodingKey] { [] }
    func decodeNil() -> Bool { false }
    func decode(_ type: String.Type) throws -> String { MessageType.text.rawValue }
    func decode(_ type: Double.Type) throws -> Double { 0 }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: FloorDecoder()) }
}
