import Foundation

// The three encoding containers. Each refers to the node it writes to and the generation that
// node had when the container was made: a container user code kept after its mapping finished
// finds the generation changed and throws instead of writing into a recycled node.

struct MappingKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    /// Unretained, and used only after a generation check on the cursor, which proves the mapping
    /// that made this container (and so its session and encoder) is still running. `Unmanaged`, so
    /// that the nested-value path can use it at +0 (`_withUnsafeGuaranteedRef`).
    private let unmanagedEncoder: Unmanaged<MappingEncoder>
    @inline(__always) var encoder: MappingEncoder { unmanagedEncoder.takeUnretainedValue() }
    let cursor: ContainerCursor

    init(encoder: MappingEncoder, cursor: ContainerCursor) {
        self.unmanagedEncoder = .passUnretained(encoder)
        self.cursor = cursor
    }

    /// A container whose every write throws and whose nested containers are detached too. Its
    /// encoder is the immortal `DetachedCoders.encoder`, never the (possibly freed) encoder of
    /// the mapping a stale container came from.
    private init(detached: Void) {
        self.unmanagedEncoder = .passUnretained(DetachedCoders.encoder)
        self.cursor = .detached()
    }

    @inline(__always) private var node: ContainerNode { cursor.node }

    var codingPath: [any CodingKey] { cursor.isCurrent ? node.codingPath : [] }

    @inline(__always)
    @discardableResult
    private func put(_ value: consuming MappedValue, forKey key: Key) throws -> Int {
        // The key's name first: it is the only user code here, so from the load of the node to the
        // write nothing can retarget the cursor, which holds the node (this container holds the
        // cursor). The node is therefore used without a retain and release per field.
        // Name and value move into the node (`take()`), with no retain and release of either.
        var name = Optional(key.stringValue)
        var pending = Optional(value)
        let cursor = cursor
        return try cursor.borrowedNode._withUnsafeGuaranteedRef { node in
            guard node.isLive(in: cursor.generation) else { throw staleContainerError([]) }
            return node.append(key: name.take().unsafelyUnwrapped, value: pending.take().unsafelyUnwrapped)
        }
    }

    mutating func encodeNil(forKey key: Key) throws { try put(.null, forKey: key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(.bool(value), forKey: key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(.string(value), forKey: key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(.double(value), forKey: key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(.float(value), forKey: key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(.int(Int64(value)), forKey: key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(.int(value), forKey: key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(.uint(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(.uint(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(.uint(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(.uint(UInt64(value)), forKey: key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(.uint(value), forKey: key) }

    /// Stores an `Int128`/`UInt128` (see `WideIntegers.swift`).
    mutating func encodeWide(_ value: MappedValue, forKey key: Key) throws { try put(value, forKey: key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        if let primitive = MappedValue(primitive: value) {
            try put(primitive, forKey: key)
            return
        }
        let slot = try put(.null, forKey: key)
        try cursor.borrowedNode._withUnsafeGuaranteedRef { node in
            try unmanagedEncoder._withUnsafeGuaranteedRef { try $0.encodeNested(value, into: node, slot: slot) }
        }
    }

    // Optionals cost one branch here, not a trip through the protocol's default implementation.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
    /// Without copying the optional, which would cost a look-up of `Optional<T>`'s metadata
    /// (see `withValue(in:_:)`).
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        try Self.encodeValue(in: value, into: &self, forKey: key)
    }

    /// The body of `encodeIfPresent<T>`, static with the container passed `inout`: a closure that
    /// captured `self` made the optimizer look up `Self`'s metadata again instead of reusing the
    /// caller's.
    @inline(__always)
    private static func encodeValue<T: Encodable>(in value: borrowing T?, into container: inout Self, forKey key: Key)
        throws
    {
        try withValue(in: value) { try container.encode($0, forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        guard cursor.isCurrent else {
            return KeyedEncodingContainer(MappingKeyedEncodingContainer<NestedKey>.detached())
        }
        // Asked again for the same key, it is the same container, as in `JSONEncoder`: what was
        // written through the first one stays.
        if let existing = node.writtenIndex(ofKey: key.stringValue), case .keyed(let child) = node.values[existing] {
            return KeyedEncodingContainer(
                MappingKeyedEncodingContainer<NestedKey>(encoder: encoder, cursor: ContainerCursor(node: child)))
        }
        let slot = node.append(key: key.stringValue, value: .null)
        let child = encoder.arena.makeNode(unkeyed: false, parent: node, index: slot)
        node.values[slot] = .keyed(child)
        return KeyedEncodingContainer(
            MappingKeyedEncodingContainer<NestedKey>(encoder: encoder, cursor: ContainerCursor(node: child)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        guard cursor.isCurrent else { return MappingUnkeyedEncodingContainer.detached() }
        if let existing = node.writtenIndex(ofKey: key.stringValue), case .unkeyed(let child) = node.values[existing] {
            return MappingUnkeyedEncodingContainer(encoder: encoder, node: child)
        }
        let slot = node.append(key: key.stringValue, value: .null)
        let child = encoder.arena.makeNode(unkeyed: true, parent: node, index: slot)
        node.values[slot] = .unkeyed(child)
        return MappingUnkeyedEncodingContainer(encoder: encoder, node: child)
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(keyString: MappingKey.super.stringValue)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(keyString: key.stringValue)
    }

    private func superEncoder(keyString: String) -> any Encoder {
        guard cursor.isCurrent else { return EncoderHandle.detached() }
        let slot = node.append(key: keyString, value: .null)
        return encoder.makeSuperEncoder(node: node, slot: slot)
    }

    /// What a stale container hands out from its non-throwing methods: a container that refuses
    /// every write, so misuse is reported instead of corrupting another mapping.
    static func detached() -> Self {
        Self(detached: ())
    }
}

struct MappingUnkeyedEncodingContainer: UnkeyedEncodingContainer, MappedValueSink {
    /// Unretained, and used only after a `generation` check (see `MappingKeyedEncodingContainer`).
    private let unmanagedEncoder: Unmanaged<MappingEncoder>
    @inline(__always) var encoder: MappingEncoder { unmanagedEncoder.takeUnretainedValue() }
    let node: ContainerNode
    let generation: UInt64

    init(encoder: MappingEncoder, node: ContainerNode) {
        self.unmanagedEncoder = .passUnretained(encoder)
        self.node = node
        self.generation = node.generation
    }

    /// See `MappingKeyedEncodingContainer.init(detached:)`.
    private init(detached: Void) {
        self.unmanagedEncoder = .passUnretained(DetachedCoders.encoder)
        self.node = ContainerNode()
        self.node.isUnkeyed = true
        self.generation = node.generation &+ 1
    }

    @inline(__always)
    private var isCurrent: Bool { node.isLive(in: generation) }

    var codingPath: [any CodingKey] { isCurrent ? node.codingPath : [] }
    var count: Int { isCurrent ? node.values.count : 0 }

    @inline(__always)
    func put(_ value: consuming MappedValue) throws {
        guard isCurrent else { throw staleContainerError([]) }
        node.values.append(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let primitive = MappedValue(primitive: value) {
            return try put(primitive)
        }
        try put(.null)
        let node = node
        try unmanagedEncoder._withUnsafeGuaranteedRef {
            try $0.encodeNested(value, into: node, slot: node.values.count - 1)
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<
        NestedKey
    > {
        guard isCurrent else {
            return KeyedEncodingContainer(MappingKeyedEncodingContainer<NestedKey>.detached())
        }
        let child = encoder.arena.makeNode(unkeyed: false, parent: node, index: node.values.count)
        node.values.append(.keyed(child))
        return KeyedEncodingContainer(
            MappingKeyedEncodingContainer<NestedKey>(encoder: encoder, cursor: ContainerCursor(node: child)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        guard isCurrent else { return Self.detached() }
        let child = encoder.arena.makeNode(unkeyed: true, parent: node, index: node.values.count)
        node.values.append(.unkeyed(child))
        return MappingUnkeyedEncodingContainer(encoder: encoder, node: child)
    }

    mutating func superEncoder() -> any Encoder {
        guard isCurrent else { return EncoderHandle.detached() }
        node.values.append(.null)
        return encoder.makeSuperEncoder(node: node, slot: node.values.count - 1)
    }

    static func detached() -> Self {
        Self(detached: ())
    }
}

/// Writes through the encoder into its current slot. Small enough (two words) to live inline in
/// the `any SingleValueEncodingContainer` existential, so asking for one allocates nothing.
struct MappingSingleValueEncodingContainer: SingleValueEncodingContainer, MappedValueSink {
    let encoder: MappingEncoder
    let level: UInt64

    var codingPath: [any CodingKey] { encoder.accepts(level: level) ? encoder.codingPath : [] }

    @inline(__always)
    func put(_ value: consuming MappedValue) throws {
        guard encoder.accepts(level: level) else { throw staleContainerError([]) }
        encoder.store(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        if let primitive = MappedValue(primitive: value) {
            return try put(primitive)
        }
        guard encoder.accepts(level: level) else { throw staleContainerError([]) }
        // The wrapped value takes this value's place, one level deeper.
        encoder.didStore = true
        try encoder.encodeNested(value, into: encoder.target, slot: encoder.slot)
    }
}

/// A container that stores one value after another (unkeyed) or one value (single-value): the
/// primitive `encode` requirements of both protocols differ only in where `put` stores.
protocol MappedValueSink {
    func put(_ value: consuming MappedValue) throws
}

extension MappedValueSink {
    mutating func encodeNil() throws { try put(.null) }
    mutating func encode(_ value: Bool) throws { try put(.bool(value)) }
    mutating func encode(_ value: String) throws { try put(.string(value)) }
    mutating func encode(_ value: Double) throws { try put(.double(value)) }
    mutating func encode(_ value: Float) throws { try put(.float(value)) }
    mutating func encode(_ value: Int) throws { try put(.int(Int64(value))) }
    mutating func encode(_ value: Int8) throws { try put(.int(Int64(value))) }
    mutating func encode(_ value: Int16) throws { try put(.int(Int64(value))) }
    mutating func encode(_ value: Int32) throws { try put(.int(Int64(value))) }
    mutating func encode(_ value: Int64) throws { try put(.int(value)) }
    mutating func encode(_ value: UInt) throws { try put(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt8) throws { try put(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt16) throws { try put(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt32) throws { try put(.uint(UInt64(value))) }
    mutating func encode(_ value: UInt64) throws { try put(.uint(value)) }

    /// Stores an `Int128`/`UInt128` (see `WideIntegers.swift`).
    mutating func encodeWide(_ value: MappedValue) throws { try put(value) }
}
