import Foundation

/// Keeping a relative `URL`'s base in JSON records, so that it reads back `==` from every context.
///
/// `JSONEncoder` writes any `URL` as its absolute string, so `URL(string: "rel/path.png",
/// relativeTo: base)` came back from the JSON contexts as the absolute URL with `baseURL == nil`,
/// which is not `==` the stored value, while the in-memory context (the mapper) and property
/// lists (`URL`'s own `Codable`) keep the base. The JSON contexts encode and decode entities
/// through these wrappers, which change one thing: a URL with a base is written as the object
/// `URL`'s own `Codable` uses, `{"base":"<absolute base>","relative":"<relative string>"}`.
/// A URL without a base is still its string, so existing records and tools such as `jq` see what
/// they always saw.
///
/// The wrappers forward everything else to the real coder unchanged, and hand values the JSON
/// coders treat specially (`Date`, `Data`, `Decimal`) and plain values straight to it, so the
/// bytes written are those `JSONEncoder` writes. A value of any other type is coded through the
/// real coder's `superEncoder`/`superDecoder`, wrapped again, so that URLs at any depth are found.
package enum RelativeURLCoding {
    /// Whether values of `type` go straight to the real coder: they hold no `URL`, or the real
    /// coder must see them as they are.
    package static func isLeaf<T>(_ type: T.Type) -> Bool {
        type == String.self || type == Int.self || type == Double.self || type == Bool.self || type == Date.self
            || type == Data.self || type == Decimal.self || type == UUID.self || type == Int64.self
            || type == Int32.self
            || type == Float.self || type == UInt.self || type == UInt64.self || type == Int8.self || type == Int16.self
            || type == UInt8.self || type == UInt16.self || type == UInt32.self
    }

    /// `URL`'s own `Codable` layout, for a URL with a base.
    package struct RelativeURL: Codable {
        var base: String
        var relative: String

        package var url: URL? {
            guard let base = URL(string: base) else { return nil }
            return URL(string: relative, relativeTo: base)
        }
    }

    /// The value to hand the real encoder for `value`: a ``RelativeURL`` for a URL with a base.
    package static func relative(_ url: URL) -> RelativeURL? {
        guard let base = url.baseURL else { return nil }
        return RelativeURL(base: base.absoluteString, relative: url.relativeString)
    }

    /// Decodes JSON `data` with `plain` (the JSON decoder alone) when it cannot hold a relative URL,
    /// and with `keepingURLs` (through ``URLKeepingDecodable``) otherwise.
    ///
    /// The wrapper costs every decode about a tenth more time and six allocations per record, for
    /// URLs that almost no record holds. A relative URL is written as an object with a `"relative"`
    /// key, so bytes without that key decode the same either way, and the plain decoder is enough.
    /// Should the plain decode fail anyway (say the key was written with escapes), the wrapper
    /// decodes it again, so the result — value or error — is always the wrapper's.
    package static func decode<T>(_ data: Data, plain: (Data) throws -> T, keepingURLs: (Data) throws -> T) throws -> T
    {
        if !containsRelativeKey(data), let value = try? plain(data) { return value }
        return try keepingURLs(data)
    }

    /// Whether `data` contains `"relative"`, the key that marks a relative URL in JSON as
    /// `JSONEncoder` writes it. Every record read runs this scan over all its bytes, so it looks
    /// for the key's `v` with `memchr` (vectorised; `v` is rare in JSON keys and text) and
    /// compares the key around each one, instead of comparing at every quote.
    private static func containsRelativeKey(_ data: Data) -> Bool {
        let key: StaticString = #""relative""#
        let vOffset = 7
        return data.withUnsafeBytes { bytes in
            key.withUTF8Buffer { key in
                guard let start = bytes.baseAddress, let keyStart = key.baseAddress, bytes.count >= key.count else {
                    return false
                }
                // A `v` that can be the key's: with its 7 bytes before and 2 after inside `data`.
                var searchFrom = vOffset
                let searchEnd = bytes.count - (key.count - 1 - vOffset)
                while searchFrom < searchEnd,
                    let found = memchr(start + searchFrom, Int32(UInt8(ascii: "v")), searchEnd - searchFrom)
                {
                    let position = UnsafeRawPointer(found) - start
                    if memcmp(start + position - vOffset, keyStart, key.count) == 0 { return true }
                    searchFrom = position + 1
                }
                return false
            }
        }
    }

    /// Decodes a URL written either way.
    static func url(
        _ decodeString: () throws -> URL, _ decodeRelative: () throws -> RelativeURL, codingPath: [any CodingKey]
    ) throws -> URL {
        do {
            return try decodeString()
        } catch let error as DecodingError {
            guard case .typeMismatch = error, let relative = try? decodeRelative() else { throw error }
            guard let url = relative.url else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: codingPath,
                        debugDescription: "Invalid relative URL \(relative.relative) against \(relative.base)"))
            }
            return url
        }
    }
}

// MARK: - Encoding

/// Encodes `value` through `encoder`, keeping relative URLs (see ``RelativeURLCoding``).
package struct URLKeepingEncodable<Value: Encodable>: Encodable {
    let value: Value
    package init(value: Value) { self.value = value }
    package func encode(to encoder: any Encoder) throws {
        try URLKeepingEncoder.encode(value, to: encoder)
    }
}

struct URLKeepingEncoder: Encoder {
    let base: any Encoder
    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    static func encode<T: Encodable>(_ value: T, to encoder: any Encoder) throws {
        if T.self == URL.self, let url = value as? URL {
            var single = encoder.singleValueContainer()
            if let relative = RelativeURLCoding.relative(url) {
                try single.encode(relative)
            } else {
                try single.encode(url)
            }
        } else if RelativeURLCoding.isLeaf(T.self) {
            var single = encoder.singleValueContainer()
            try single.encode(value)
        } else {
            try value.encode(to: URLKeepingEncoder(base: encoder))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(Keyed(base: base.container(keyedBy: type)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        Unkeyed(base: base.unkeyedContainer())
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        Single(base: base.singleValueContainer(), encoder: base)
    }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        var base: KeyedEncodingContainer<Key>
        var codingPath: [any CodingKey] { base.codingPath }

        mutating func encodeNil(forKey key: Key) throws { try base.encodeNil(forKey: key) }
        mutating func encode(_ value: Bool, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: String, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: Double, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: Float, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: Int, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: Int8, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: Int16, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: Int32, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: Int64, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: UInt, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: UInt8, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: UInt16, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: UInt32, forKey key: Key) throws { try base.encode(value, forKey: key) }
        mutating func encode(_ value: UInt64, forKey key: Key) throws { try base.encode(value, forKey: key) }

        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            if T.self == URL.self, let url = value as? URL {
                if let relative = RelativeURLCoding.relative(url) {
                    try base.encode(relative, forKey: key)
                } else {
                    try base.encode(url, forKey: key)
                }
            } else if RelativeURLCoding.isLeaf(T.self) {
                try base.encode(value, forKey: key)
            } else {
                try value.encode(to: URLKeepingEncoder(base: base.superEncoder(forKey: key)))
            }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            KeyedEncodingContainer(Keyed<NestedKey>(base: base.nestedContainer(keyedBy: keyType, forKey: key)))
        }

        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            Unkeyed(base: base.nestedUnkeyedContainer(forKey: key))
        }

        mutating func superEncoder() -> any Encoder { URLKeepingEncoder(base: base.superEncoder()) }
        mutating func superEncoder(forKey key: Key) -> any Encoder {
            URLKeepingEncoder(base: base.superEncoder(forKey: key))
        }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        var base: any UnkeyedEncodingContainer
        var codingPath: [any CodingKey] { base.codingPath }
        var count: Int { base.count }

        mutating func encodeNil() throws { try base.encodeNil() }
        mutating func encode(_ value: Bool) throws { try base.encode(value) }
        mutating func encode(_ value: String) throws { try base.encode(value) }
        mutating func encode(_ value: Double) throws { try base.encode(value) }
        mutating func encode(_ value: Float) throws { try base.encode(value) }
        mutating func encode(_ value: Int) throws { try base.encode(value) }
        mutating func encode(_ value: Int8) throws { try base.encode(value) }
        mutating func encode(_ value: Int16) throws { try base.encode(value) }
        mutating func encode(_ value: Int32) throws { try base.encode(value) }
        mutating func encode(_ value: Int64) throws { try base.encode(value) }
        mutating func encode(_ value: UInt) throws { try base.encode(value) }
        mutating func encode(_ value: UInt8) throws { try base.encode(value) }
        mutating func encode(_ value: UInt16) throws { try base.encode(value) }
        mutating func encode(_ value: UInt32) throws { try base.encode(value) }
        mutating func encode(_ value: UInt64) throws { try base.encode(value) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            if T.self == URL.self, let url = value as? URL {
                if let relative = RelativeURLCoding.relative(url) {
                    try base.encode(relative)
                } else {
                    try base.encode(url)
                }
            } else if RelativeURLCoding.isLeaf(T.self) {
                try base.encode(value)
            } else {
                try value.encode(to: URLKeepingEncoder(base: base.superEncoder()))
            }
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
            NestedKey
        > {
            KeyedEncodingContainer(Keyed<NestedKey>(base: base.nestedContainer(keyedBy: keyType)))
        }

        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            Unkeyed(base: base.nestedUnkeyedContainer())
        }

        mutating func superEncoder() -> any Encoder { URLKeepingEncoder(base: base.superEncoder()) }
    }

    struct Single: SingleValueEncodingContainer {
        var base: any SingleValueEncodingContainer
        /// The real encoder this container belongs to, for values coded through their own `encode(to:)`.
        let encoder: any Encoder
        var codingPath: [any CodingKey] { base.codingPath }

        mutating func encodeNil() throws { try base.encodeNil() }
        mutating func encode(_ value: Bool) throws { try base.encode(value) }
        mutating func encode(_ value: String) throws { try base.encode(value) }
        mutating func encode(_ value: Double) throws { try base.encode(value) }
        mutating func encode(_ value: Float) throws { try base.encode(value) }
        mutating func encode(_ value: Int) throws { try base.encode(value) }
        mutating func encode(_ value: Int8) throws { try base.encode(value) }
        mutating func encode(_ value: Int16) throws { try base.encode(value) }
        mutating func encode(_ value: Int32) throws { try base.encode(value) }
        mutating func encode(_ value: Int64) throws { try base.encode(value) }
        mutating func encode(_ value: UInt) throws { try base.encode(value) }
        mutating func encode(_ value: UInt8) throws { try base.encode(value) }
        mutating func encode(_ value: UInt16) throws { try base.encode(value) }
        mutating func encode(_ value: UInt32) throws { try base.encode(value) }
        mutating func encode(_ value: UInt64) throws { try base.encode(value) }

        mutating func encode<T: Encodable>(_ value: T) throws {
            if T.self == URL.self, let url = value as? URL {
                if let relative = RelativeURLCoding.relative(url) {
                    try base.encode(relative)
                } else {
                    try base.encode(url)
                }
            } else if RelativeURLCoding.isLeaf(T.self) {
                try base.encode(value)
            } else {
                // The same value, coded by its own `encode(to:)` into this encoder.
                try value.encode(to: URLKeepingEncoder(base: encoder))
            }
        }
    }
}

// MARK: - Decoding

/// Decodes a `Value` through `decoder`, reading relative URLs back (see ``RelativeURLCoding``).
package struct URLKeepingDecodable<Value: Decodable>: Decodable {
    package let value: Value
    package init(from decoder: any Decoder) throws {
        value = try URLKeepingDecoder.decode(Value.self, from: decoder)
    }
}

struct URLKeepingDecoder: Decoder {
    let base: any Decoder
    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    static func decode<T: Decodable>(_ type: T.Type, from decoder: any Decoder) throws -> T {
        if T.self == URL.self {
            let single = try decoder.singleValueContainer()
            return try RelativeURLCoding.url(
                { try single.decode(URL.self) }, { try single.decode(RelativeURLCoding.RelativeURL.self) },
                codingPath: decoder.codingPath) as! T
        }
        if RelativeURLCoding.isLeaf(T.self) { return try decoder.singleValueContainer().decode(T.self) }
        return try T(from: URLKeepingDecoder(base: decoder))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(Keyed(base: try base.container(keyedBy: type)))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        Unkeyed(base: try base.unkeyedContainer())
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        Single(base: try base.singleValueContainer(), decoder: base)
    }

    struct Keyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let base: KeyedDecodingContainer<Key>
        var codingPath: [any CodingKey] { base.codingPath }
        var allKeys: [Key] { base.allKeys }

        func contains(_ key: Key) -> Bool { base.contains(key) }
        func decodeNil(forKey key: Key) throws -> Bool { try base.decodeNil(forKey: key) }
        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try base.decode(type, forKey: key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try base.decode(type, forKey: key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try base.decode(type, forKey: key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try base.decode(type, forKey: key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try base.decode(type, forKey: key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try base.decode(type, forKey: key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try base.decode(type, forKey: key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try base.decode(type, forKey: key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try base.decode(type, forKey: key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try base.decode(type, forKey: key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try base.decode(type, forKey: key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try base.decode(type, forKey: key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try base.decode(type, forKey: key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try base.decode(type, forKey: key) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            if T.self == URL.self {
                return try RelativeURLCoding.url(
                    { try base.decode(URL.self, forKey: key) },
                    { try base.decode(RelativeURLCoding.RelativeURL.self, forKey: key) },
                    codingPath: base.codingPath + [key]) as! T
            }
            if RelativeURLCoding.isLeaf(T.self) { return try base.decode(T.self, forKey: key) }
            return try T(from: URLKeepingDecoder(base: try base.superDecoder(forKey: key)))
        }

        func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
            if RelativeURLCoding.isLeaf(T.self) { return try base.decodeIfPresent(T.self, forKey: key) }
            guard base.contains(key), try !base.decodeNil(forKey: key) else { return nil }
            return try decode(T.self, forKey: key)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            KeyedDecodingContainer(Keyed<NestedKey>(base: try base.nestedContainer(keyedBy: type, forKey: key)))
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            Unkeyed(base: try base.nestedUnkeyedContainer(forKey: key))
        }

        func superDecoder() throws -> any Decoder { URLKeepingDecoder(base: try base.superDecoder()) }
        func superDecoder(forKey key: Key) throws -> any Decoder {
            URLKeepingDecoder(base: try base.superDecoder(forKey: key))
        }
    }

    struct Unkeyed: UnkeyedDecodingContainer {
        var base: any UnkeyedDecodingContainer
        var codingPath: [any CodingKey] { base.codingPath }
        var count: Int? { base.count }
        var isAtEnd: Bool { base.isAtEnd }
        var currentIndex: Int { base.currentIndex }

        mutating func decodeNil() throws -> Bool { try base.decodeNil() }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
        mutating func decode(_ type: String.Type) throws -> String { try base.decode(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if T.self == URL.self {
                // Try the string first without moving on: decode from a fresh super decoder,
                // which reads the element once, whichever way it was written.
                let element = try base.superDecoder()
                return try URLKeepingDecoder.decode(T.self, from: element)
            }
            if RelativeURLCoding.isLeaf(T.self) { return try base.decode(T.self) }
            return try T(from: URLKeepingDecoder(base: try base.superDecoder()))
        }

        mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
            if RelativeURLCoding.isLeaf(T.self) { return try base.decodeIfPresent(T.self) }
            if try base.decodeNil() { return nil }
            return try decode(T.self)
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            KeyedDecodingContainer(Keyed<NestedKey>(base: try base.nestedContainer(keyedBy: type)))
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            Unkeyed(base: try base.nestedUnkeyedContainer())
        }

        mutating func superDecoder() throws -> any Decoder { URLKeepingDecoder(base: try base.superDecoder()) }
    }

    struct Single: SingleValueDecodingContainer {
        let base: any SingleValueDecodingContainer
        /// The real decoder this container belongs to, for values decoded by their own `init(from:)`.
        let decoder: any Decoder
        var codingPath: [any CodingKey] { base.codingPath }

        func decodeNil() -> Bool { base.decodeNil() }
        func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
        func decode(_ type: String.Type) throws -> String { try base.decode(type) }
        func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
        func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
        func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
        func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }
        func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }
        func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }
        func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
        func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }
        func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }
        func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }
        func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }
        func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }

        func decode<T: Decodable>(_ type: T.Type) throws -> T {
            if T.self == URL.self || !RelativeURLCoding.isLeaf(T.self) {
                return try URLKeepingDecoder.decode(T.self, from: decoder)
            }
            return try base.decode(T.self)
        }
    }
}
