import BenchmarkModels
import Foundation

/// A coder pair that does none of a mapper's work — it stores nothing but the length of each array
/// and reads back constants — while making every Codable call a real conversion makes: the
/// containers, one call per field, `key.stringValue`, nested values and every array element through
/// their own `encode(to:)`/`init(from:)`.
///
/// What it costs is a lower bound for any Codable-based converter on this toolchain, because the
/// standard library's container boxes, protocol dispatch and generic metadata lookups are paid
/// whatever the coder does. (It is a *lower* bound: optionals read back as absent, so a `URL?`
/// costs it nothing.) `ratios floor` compares it with the hand-written translator, to show how much
/// of the mapper's time is Codable's own.
///
/// Array lengths are kept because without them a decoded array would be empty, and the floor of a
/// `Dialog` would skip the twenty messages that make up nearly all of its cost. They are read back
/// in the order they were written, which is the order synthesized conformances decode them in.
public enum CodableFloor {
    /// Message → MessageEntity through the do-nothing coders.
    public static func entity(from message: Message) throws -> MessageEntity {
        try convert(message, to: MessageEntity.self)
    }

    /// MessageEntity → Message through the do-nothing coders.
    public static func plain(from entity: MessageEntity) throws -> Message {
        try convert(entity, to: Message.self)
    }

    /// `value` encoded and a `Target` decoded through the do-nothing coders, as `EntityMapper.map`
    /// does with real ones. Throws only what the two types' own Codable code throws.
    public static func convert<Source: Encodable, Target: Decodable>(_ value: Source, to type: Target.Type) throws
        -> Target
    {
        lengths.removeAll(keepingCapacity: true)
        try value.encode(to: encoder)
        lengths.startReading()
        return try Target(from: decoder)
    }

    // One pair for the whole process, as a mapper reuses its coders. Benchmarks run on one thread.
    private nonisolated(unsafe) static let lengths = ArrayLengths()
    private nonisolated(unsafe) static let encoder = FloorEncoder(lengths: lengths)
    private nonisolated(unsafe) static let decoder = FloorDecoder(lengths: lengths)
}

/// The one thing the floor coders keep: how many elements each array written had, in the order the
/// arrays were started. The buffer is reused, so after the first conversion it allocates nothing.
private final class ArrayLengths {
    private var counts: [Int] = []
    private var nextRead = 0

    func removeAll(keepingCapacity: Bool) {
        counts.removeAll(keepingCapacity: keepingCapacity)
        nextRead = 0
    }

    /// Starts an array; returns its index for ``increment(_:)``.
    func start() -> Int {
        counts.append(0)
        return counts.count - 1
    }

    func increment(_ index: Int) { counts[index] += 1 }

    func count(_ index: Int) -> Int { counts[index] }

    func startReading() { nextRead = 0 }

    /// The length of the next array to decode; 0 past the last one written.
    func next() -> Int {
        guard nextRead < counts.count else { return 0 }
        nextRead += 1
        return counts[nextRead - 1]
    }
}

/// Keeps a key's name from being optimized away, as a real coder would use it.
@inline(never)
private func touch(_ name: String) {}

private final class FloorEncoder: Encoder {
    let lengths: ArrayLengths
    init(lengths: ArrayLengths) { self.lengths = lengths }
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
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        KeyedEncodingContainer(FloorKeyedEncoding<NestedKey>(encoder: encoder))
    }
    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        touch(key.stringValue)
        return FloorUnkeyedEncoding(encoder: encoder)
    }
    mutating func superEncoder() -> any Encoder { encoder }
    mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

private struct FloorUnkeyedEncoding: UnkeyedEncodingContainer {
    unowned(unsafe) let encoder: FloorEncoder
    /// This array's entry in the encoder's ``ArrayLengths``.
    let index: Int
    init(encoder: FloorEncoder) {
        self.encoder = encoder
        self.index = encoder.lengths.start()
    }
    var codingPath: [any CodingKey] { [] }
    var count: Int { encoder.lengths.count(index) }
    mutating func encodeNil() throws { encoder.lengths.increment(index) }
    mutating func encode(_ value: String) throws { encoder.lengths.increment(index) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        encoder.lengths.increment(index)
        // As in the keyed container: what a mapper carries as a value skips its own encode(to:).
        if T.self == String.self || T.self == Date.self || T.self == URL.self { return }
        try value.encode(to: encoder)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        encoder.lengths.increment(index)
        return KeyedEncodingContainer(FloorKeyedEncoding<NestedKey>(encoder: encoder))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoder.lengths.increment(index)
        return FloorUnkeyedEncoding(encoder: encoder)
    }
    mutating func superEncoder() -> any Encoder { encoder }
}

private struct FloorSingleValueEncoding: SingleValueEncodingContainer {
    unowned(unsafe) let encoder: FloorEncoder
    var codingPath: [any CodingKey] { [] }
    mutating func encodeNil() throws {}
    mutating func encode(_ value: String) throws {}
    mutating func encode<T: Encodable>(_ value: T) throws {}
}

private final class FloorDecoder: Decoder {
    let lengths: ArrayLengths
    init(lengths: ArrayLengths) { self.lengths = lengths }
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(FloorKeyedDecoding<Key>(decoder: self))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        FloorUnkeyedDecoding(decoder: self, count: lengths.next())
    }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { FloorSingleValueDecoding(decoder: self) }
}

private struct FloorKeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    unowned(unsafe) let decoder: FloorDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        touch(key.stringValue)
        return false
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        touch(key.stringValue)
        return ""
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        touch(key.stringValue)
        return 0
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        touch(key.stringValue)
        return 0
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        touch(key.stringValue)
        return nil
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        touch(key.stringValue)
        return nil
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        touch(key.stringValue)
        if T.self == Date.self { return Date(timeIntervalSinceReferenceDate: 0) as! T }
        return try T(from: decoder)
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        KeyedDecodingContainer(FloorKeyedDecoding<NestedKey>(decoder: decoder))
    }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        touch(key.stringValue)
        return FloorUnkeyedDecoding(decoder: decoder, count: decoder.lengths.next())
    }
    func superDecoder() throws -> any Decoder { decoder }
    func superDecoder(forKey key: Key) throws -> any Decoder { decoder }
}

/// An array of as many elements as the encoder wrote into the matching array, each read through
/// its own `init(from:)`.
private struct FloorUnkeyedDecoding: UnkeyedDecodingContainer {
    unowned(unsafe) let decoder: FloorDecoder
    let elementCount: Int
    private(set) var currentIndex = 0
    init(decoder: FloorDecoder, count: Int) {
        self.decoder = decoder
        self.elementCount = count
    }
    var codingPath: [any CodingKey] { [] }
    var count: Int? { elementCount }
    var isAtEnd: Bool { currentIndex >= elementCount }
    mutating func decodeNil() throws -> Bool { false }
    mutating func decode(_ type: String.Type) throws -> String {
        try next(String.self)
        return ""
    }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try next(T.self)
        // A mapper reads a String element as a value; so does the floor (the cast is to T itself).
        if T.self == String.self { return unsafeBitCast("", to: T.self) }
        return try T(from: decoder)
    }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        try next(NestedKey.self)
        return KeyedDecodingContainer(FloorKeyedDecoding<NestedKey>(decoder: decoder))
    }
    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next(Self.self)
        return FloorUnkeyedDecoding(decoder: decoder, count: decoder.lengths.next())
    }
    mutating func superDecoder() throws -> any Decoder {
        try next(FloorDecoder.self)
        return decoder
    }
    /// Moves past one element; throws at the end, as every unkeyed container must.
    private mutating func next(_ type: Any.Type) throws {
        guard currentIndex < elementCount else {
            throw DecodingError.valueNotFound(type, .init(codingPath: [], debugDescription: "at end"))
        }
        currentIndex += 1
    }
}

/// Reads every single value as the first `MessageType` raw value, the only one the models need.
private struct FloorSingleValueDecoding: SingleValueDecodingContainer {
    unowned(unsafe) let decoder: FloorDecoder
    var codingPath: [any CodingKey] { [] }
    func decodeNil() -> Bool { false }
    func decode(_ type: String.Type) throws -> String { MessageType.text.rawValue }
    func decode(_ type: Double.Type) throws -> Double { 0 }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try T(from: decoder) }
}
