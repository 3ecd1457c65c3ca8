import Foundation

/// Reads chosen fields of an entity as ``StorageValue``s, through the entity's own
/// `encode(to:)`: the representation the mapper would see, without building it.
///
/// An `Encoder` that keeps only what a query asks for: a keyed value no requested path goes
/// through is not even encoded (its `encode(to:)` is never called), so reading two fields of an
/// entity costs about two field encodes, not the whole entity. Unkeyed containers are skipped
/// (a query cannot name an element), and a requested field that holds a container reads as
/// ``StorageValue/null``.
///
/// Immutable and `Sendable`: every call makes its own encoder.
package struct FieldExtractor: Sendable {
    /// The requested paths, merged into a tree of coding keys.
    private let root: FieldTrie
    /// How many fields ``values(of:)`` returns.
    let fieldCount: Int

    /// An extractor for `fields`; ``values(of:)`` returns their values in this order.
    init(fields: [FieldPath]) {
        let root = FieldTrie()
        for (slot, field) in fields.enumerated() {
            var node = root
            for key in field.keys { node = node.child(creating: key) }
            node.slot = slot
        }
        self.root = root
        self.fieldCount = fields.count
    }

    /// The values of the requested fields of `entity`, in the order the fields were given;
    /// ``StorageValue/null`` for a field that is missing, `nil` or a container.
    /// - Throws: what `entity`'s `encode(to:)` throws.
    func values(of entity: some Encodable) throws -> [StorageValue] {
        let sink = CaptureSink(count: fieldCount)
        let encoder = CaptureEncoder(sink: sink, node: root)
        try entity.encode(to: encoder)
        return sink.values
    }

    /// `value` as a single ``StorageValue``, or `nil` when it encodes as a container or its
    /// `encode(to:)` throws.
    package static func scalar(of value: some Encodable) -> StorageValue? {
        if let primitive = StorageValue(primitive: value) { return primitive }
        let node = FieldTrie()
        node.slot = 0
        let sink = CaptureSink(count: 1)
        sink.values[0] = .null
        do {
            try value.encode(to: CaptureEncoder(sink: sink, node: node))
        } catch {
            return nil
        }
        return sink.sawContainer ? nil : sink.values[0]
    }
}

/// A node of the tree of requested paths: the field the path to it names (``slot``) and the
/// nodes below it. Mutated only while ``FieldExtractor/init(fields:)`` (or
/// ``FieldExtractor/scalar(of:)``, for a tree of its own) builds it, before anyone else can see
/// it; after that only read, so shared between threads read-only — which is also why its
/// properties skip dynamic exclusivity checks (an encode reads them for every field it writes).
private final class FieldTrie: @unchecked Sendable {
    /// The index of the requested field this node is, if any.
    @exclusivity(unchecked) var slot: Int?
    /// The keys below, in a short array: queries name a handful of fields, where a linear scan of
    /// a few strings beats hashing. A key that is a small ASCII string also has its bytes
    /// (``StringBits/smallASCII(_:)``), which equal another small ASCII key's exactly when the
    /// strings are equal: `==` on two different strings goes through Unicode comparison, and an
    /// encode asks about every field of the entity, requested or not.
    @exclusivity(unchecked) private(set) var children:
        [(key: String, bytes: (low: UInt64, high: UInt64)?, node: FieldTrie)] = []
    /// ``StringBits/isSupported``, read once (it is a lazily initialised global).
    private let readsStringBits = StringBits.isSupported

    func child(creating key: String) -> FieldTrie {
        if let node = child(key) { return node }
        let node = FieldTrie()
        children.append((key, readsStringBits ? StringBits.smallASCII(key) : nil, node))
        return node
    }

    @inline(__always)
    func child(_ key: String) -> FieldTrie? {
        if readsStringBits, let bytes = StringBits.smallASCII(key) {
            for entry in children {
                if let entryBytes = entry.bytes {
                    if entryBytes == bytes { return entry.node }
                } else if entry.key == key {
                    return entry.node
                }
            }
            return nil
        }
        for entry in children where entry.key == key { return entry.node }
        return nil
    }
}

/// Where one extraction writes the values it finds.
///
/// Its properties skip dynamic exclusivity checks (two calls into the runtime per field written):
/// one extraction runs on one thread, and no access to them overlaps another.
private final class CaptureSink {
    @exclusivity(unchecked) var values: [StorageValue]
    /// Whether a container was opened at a requested field (``FieldExtractor/scalar(of:)``).
    @exclusivity(unchecked) var sawContainer = false

    init(count: Int) {
        values = Array(repeating: .null, count: count)
    }
}

extension StorageValue {
    /// The value of a primitive the mapper keeps as itself (see `MappedValue`), or `nil` for any
    /// other type, which must encode itself.
    ///
    /// Recognised and read as the mapper reads it (``MappedValue/init(primitive:)``, by metatype
    /// identity): an `as?` cast per candidate type would run the runtime's cast machinery once per
    /// candidate, for every field read.
    package init?<Value: Encodable>(primitive value: Value) {
        switch MappedValue(primitive: value) {
        case nil: return nil
        case .null?: self = .null
        case .bool(let v)?: self = .bool(v)
        case .int(let v)?: self = .int(v)
        case .uint(let v)?: self = .uint(v)
        case .float(let v)?: self = .double(Double(v))
        case .double(let v)?: self = .double(v)
        case .string(let v)?: self = .string(v)
        case .date(let v)?: self = .date(v)
        case .data(let v)?: self = .data(v)
        case .url(let v)?: self = .url(v)
        case .uuid(let v)?: self = .uuid(v)
        case .decimal(let v)?: self = .decimal(v)
        case .wideInt?, .wideUInt?, .keyed?, .unkeyed?:
            return nil  // never a primitive's representation; encoded through the value itself
        }
    }
}

/// The `Encoder` of one extraction, positioned at a node of the requested-path tree; `nil` for
/// a value nothing below is requested from (everything is dropped). A struct of two references,
/// which an `any Encoder` holds in place: handing it to `encode(to:)` allocates nothing.
private struct CaptureEncoder: Encoder {
    let sink: CaptureSink
    let node: FieldTrie?

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if node?.slot != nil { sink.sawContainer = true }
        return KeyedEncodingContainer(CaptureKeyedContainer<Key>(sink: sink, node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if node?.slot != nil { sink.sawContainer = true }
        return DiscardingUnkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        CaptureSingleValueContainer(sink: sink, slot: node?.slot)
    }

    /// Encodes `value`, requested at `node`, into the sink.
    static func capture(_ value: some Encodable, sink: CaptureSink, node: FieldTrie) throws {
        if let slot = node.slot, let primitive = StorageValue(primitive: value) {
            sink.values[slot] = primitive
            return
        }
        try value.encode(to: CaptureEncoder(sink: sink, node: node))
    }
}

private struct CaptureSingleValueContainer: SingleValueEncodingContainer {
    let sink: CaptureSink
    let slot: Int?
    var codingPath: [any CodingKey] { [] }

    private func store(_ value: StorageValue) {
        if let slot { sink.values[slot] = value }
    }

    mutating func encodeNil() throws { store(.null) }
    mutating func encode(_ value: Bool) throws { store(.bool(value)) }
    mutating func encode(_ value: String) throws { store(.string(value)) }
    mutating func encode(_ value: Double) throws { store(.double(value)) }
    mutating func encode(_ value: Float) throws { store(.double(Double(value))) }
    mutating func encode(_ value: Int) throws { store(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { store(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { store(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { store(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { store(.int(value)) }
    mutating func encode(_ value: UInt) throws { store(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { store(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { store(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { store(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { store(.uint(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        guard let slot else { return }
        if let primitive = StorageValue(primitive: value) {
            sink.values[slot] = primitive
        } else {
            let node = FieldTrie()
            node.slot = slot
            try value.encode(to: CaptureEncoder(sink: sink, node: node))
        }
    }
}

private struct CaptureKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let sink: CaptureSink
    let node: FieldTrie?
    var codingPath: [any CodingKey] { [] }

    /// The slot of the requested field `key` names directly, if any.
    @inline(__always)
    private func slot(_ key: Key) -> Int? {
        guard let node, !node.children.isEmpty else { return nil }
        return node.child(key.stringValue)?.slot
    }

    private func store(_ value: StorageValue, _ key: Key) {
        if let slot = slot(key) { sink.values[slot] = value }
    }

    mutating func encodeNil(forKey key: Key) throws { store(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { store(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { store(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { store(.double(value), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { store(.double(Double(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { store(.int(Int64(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { store(.int(Int64(value)), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { store(.int(Int64(value)), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { store(.int(Int64(value)), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { store(.int(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { store(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { store(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { store(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { store(.uint(UInt64(value)), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { store(.uint(value), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        // Nothing requested at or below this key: the value is never encoded.
        guard let child = node?.child(key.stringValue) else { return }
        try CaptureEncoder.capture(value, sink: sink, node: child)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = node?.child(key.stringValue)
        if child?.slot != nil { sink.sawContainer = true }
        return KeyedEncodingContainer(CaptureKeyedContainer<NestedKey>(sink: sink, node: child))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        DiscardingUnkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        CaptureEncoder(sink: sink, node: node?.child("super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        CaptureEncoder(sink: sink, node: node?.child(key.stringValue))
    }
}

/// An unkeyed container whose elements no query can name: everything put in it is dropped
/// without being encoded.
private struct DiscardingUnkeyedContainer: UnkeyedEncodingContainer {
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    mutating func encodeNil() throws { count += 1 }
    mutating func encode<T: Encodable>(_ value: T) throws { count += 1 }
    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        count += 1
        return KeyedEncodingContainer(CaptureKeyedContainer<NestedKey>(sink: CaptureSink(count: 0), node: nil))
    }
    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        count += 1
        return DiscardingUnkeyedContainer()
    }
    mutating func superEncoder() -> any Encoder { CaptureEncoder(sink: CaptureSink(count: 0), node: nil) }
}
