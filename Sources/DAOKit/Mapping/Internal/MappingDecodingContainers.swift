import Foundation

// The three decoding containers. Keyed lookups try the position after the previous hit first
// (types usually read keys in the order they were written) and fall back to a scan, so a
// well-behaved type pays one string comparison per key, and one in any other order still works.
// Every successful read is recorded on the node, for strict mode.

struct MappingKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    /// Unowned and unretained: the standard library's container box copies this struct for every
    /// call, and each retained reference would cost a retain and a release per field. Sound because
    /// every use of `decoder` follows a generation check on the cursor: a match means the mapping
    /// that made this container is still running, so its session and decoder are alive.
    private let unmanagedDecoder: Unmanaged<MappingDecoder>
    @inline(__always) var decoder: MappingDecoder { unmanagedDecoder.takeUnretainedValue() }
    /// Unretained too, for the same reason: with both references unretained the container is plain
    /// bits, and the box's copy per call costs no retain and release. Whoever makes a container
    /// must keep its cursor alive for as long as the container can be used: the decoder's
    /// `ContainerCache` does, for every box it hands out (see its "Cursor ownership"), and
    /// ``CursorOwningKeyedDecodingContainer`` does for its own. Used through
    /// `_withUnsafeGuaranteedRef`, so that even using it costs no retain.
    private let unmanagedCursor: Unmanaged<ContainerCursor>

    /// A container over `cursor`, which the caller keeps alive for as long as the container (and
    /// any copy of it) can be used.
    init(decoder: MappingDecoder, cursor: ContainerCursor) {
        self.unmanagedDecoder = .passUnretained(decoder)
        self.unmanagedCursor = .passUnretained(cursor)
    }

    @inline(__always) private var cursor: ContainerCursor { unmanagedCursor.takeUnretainedValue() }

    @inline(__always) private var node: ContainerNode { cursor.node }
    @inline(__always) private var isCurrent: Bool { cursor.isCurrent }

    var codingPath: [any CodingKey] { isCurrent ? node.codingPath : [] }

    var allKeys: [Key] {
        guard isCurrent else { return [] }
        return node.keys.indices.compactMap { Key(stringValue: node.keys[$0]) }
    }

    func contains(_ key: Key) -> Bool {
        isCurrent && node.keys.contains(key.stringValue)
    }

    /// The entry holding `key`, recorded as read; `nil` when the source has no such key.
    ///
    /// This and ``read(_:_:)`` use the node at +0, without a retain and release per field: the
    /// cursor holds it (this container holds the cursor), and while the mapping that made it runs
    /// its arena holds it too. The key's name — user code — is read before the node is.
    /// (They answer an `Int?` and an `R` rather than an `R?`: a generic optional would cost every
    /// call a metadata lookup of `Optional<R>`.)
    @inline(__always)
    private func entry(for key: Key) throws -> Int? {
        let name = key.stringValue
        return try unmanagedCursor._withUnsafeGuaranteedRef { cursor in
            try cursor.borrowedNode._withUnsafeGuaranteedRef { node -> Int? in
                guard node.isLive(in: cursor.generation) else { throw staleDecodingContainerError([]) }
                guard let entry = node.index(of: name) else { return nil }
                node.markRead(entry)
                return entry
            }
        }
    }

    /// Runs `body` on entry `entry` of the node (see ``entry(for:)``).
    @inline(__always)
    private func read<R>(_ entry: Int, _ body: (ContainerNode, Int) throws -> R) rethrows -> R {
        try unmanagedCursor._withUnsafeGuaranteedRef { cursor in
            try cursor.borrowedNode._withUnsafeGuaranteedRef { node in try body(node, entry) }
        }
    }

    /// ``entry(for:)`` for a key that must be there: `keyNotFound` when it is not.
    @inline(__always)
    private func requiredEntry(for key: Key) throws -> Int {
        if let found = try entry(for: key) { return found }
        throw DecodingError.keyNotFound(
            key,
            DecodingError.Context(
                codingPath: node.codingPath,
                debugDescription: "No value associated with key \(key.stringValue.debugDescription)"))
    }

    /// The entry holding `key` when its value is not null; one lookup for an optional.
    @inline(__always)
    private func presentEntry(for key: Key) throws -> Int? {
        guard let entry = try entry(for: key), !read(entry, { node, entry in node.values[entry].isNull }) else {
            return nil
        }
        return entry
    }

    /// Reads `key`'s value with `convert`, at the value's position.
    @inline(__always)
    private func value<R>(for key: Key, _ convert: (MappedValue, CodingPosition) throws -> R) throws -> R {
        try read(try requiredEntry(for: key)) { node, entry in
            try convert(node.values[entry], CodingPosition(node: node, index: entry))
        }
    }

    /// Reads `key`'s value with `convert`; `nil` when the key is absent or its value is null.
    @inline(__always)
    private func presentValue<R>(for key: Key, _ convert: (MappedValue, CodingPosition) throws -> R) throws -> R? {
        guard let entry = try presentEntry(for: key) else { return nil }
        return try read(entry) { node, entry in
            try convert(node.values[entry], CodingPosition(node: node, index: entry))
        }
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        read(try requiredEntry(for: key)) { node, entry in node.values[entry].isNull }
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try value(for: key) { try $0.bool(at: $1) } }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try value(for: key) { try $0.string(at: $1) } }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try value(for: key) { try $0.double(at: $1) } }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try value(for: key) { try $0.float(at: $1) } }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }

    @inline(__always)
    private func integer<I: FixedWidthInteger>(_ key: Key) throws -> I {
        try value(for: key) { try $0.integer(I.self, at: $1) }
    }

    /// Reads an `Int128`/`UInt128` (see `WideIntegers.swift`).
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decodeWide<I: FixedWidthInteger>(_ type: I.Type, forKey key: Key) throws -> I {
        try value(for: key) { try $0.wideInteger(I.self, at: $1) }
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try read(try requiredEntry(for: key)) { node, entry in
            try unmanagedDecoder._withUnsafeGuaranteedRef { try $0.decode(T.self, entry: entry, of: node) }
        }
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentValue(for: key) { try $0.bool(at: $1) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentValue(for: key) { try $0.string(at: $1) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try presentValue(for: key) { try $0.double(at: $1) }
    }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? {
        try presentValue(for: key) { try $0.float(at: $1) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try optionalInteger(key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try optionalInteger(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try optionalInteger(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try optionalInteger(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try optionalInteger(key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try optionalInteger(key) }

    @inline(__always)
    private func optionalInteger<I: FixedWidthInteger>(_ key: Key) throws -> I? {
        try presentValue(for: key) { try $0.integer(I.self, at: $1) }
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let entry = try presentEntry(for: key) else { return nil }
        return try read(entry) { node, entry in
            try unmanagedDecoder._withUnsafeGuaranteedRef { try $0.decode(T.self, entry: entry, of: node) }
        }
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type, forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let child = try value(for: key) { value, at in
            guard case .keyed(let child) = value else {
                throw value.mismatch(KeyedDecodingContainer<NestedKey>.self, at: at)
            }
            return child
        }
        return decoder.keyedContainer(for: child, keyedBy: NestedKey.self)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let child = try value(for: key) { value, at in
            guard case .unkeyed(let child) = value else { throw value.mismatch(UnkeyedDecodingContainer.self, at: at) }
            return child
        }
        return MappingUnkeyedDecodingContainer(decoder: decoder, node: child)
    }

    func superDecoder() throws -> any Decoder {
        guard isCurrent else { throw staleDecodingContainerError([]) }
        guard let found = node.index(of: MappingKey.super.stringValue) else {
            return decoder.makeSuperDecoder(parent: node, missingKey: MappingKey.super.stringValue)
        }
        node.markRead(found)
        return decoder.makeSuperDecoder(parent: node, entry: found)
    }

    /// Like `JSONDecoder`, a key the source lacks gives a decoder that reads a null (so decoding a
    /// value from it is `valueNotFound`), not a `keyNotFound` from this call.
    func superDecoder(forKey key: Key) throws -> any Decoder {
        guard let entry = try entry(for: key) else {
            return decoder.makeSuperDecoder(parent: node, missingKey: key.stringValue)
        }
        return decoder.makeSuperDecoder(parent: node, entry: entry)
    }
}

struct MappingUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    /// Unretained, and used only after a `generation` check (see `MappingKeyedDecodingContainer`);
    /// `Unmanaged`, so that the element path can use it at +0 (`_withUnsafeGuaranteedRef`).
    private let unmanagedDecoder: Unmanaged<MappingDecoder>
    @inline(__always) var decoder: MappingDecoder { unmanagedDecoder.takeUnretainedValue() }
    let node: ContainerNode
    /// The node's generation and the index, packed so the container is three words and fits the
    /// `any UnkeyedDecodingContainer` existential without an allocation. 32 bits hold every
    /// generation a node can have: it is retired before it would pass `UInt32.max` (see
    /// `ContainerNode.generation`), so a stale container can never be fooled by a wrap.
    private let generation: UInt32
    private var index: UInt32 = 0

    init(decoder: MappingDecoder, node: ContainerNode) {
        self.unmanagedDecoder = .passUnretained(decoder)
        self.node = node
        self.generation = UInt32(truncatingIfNeeded: node.generation)
    }

    var currentIndex: Int { Int(index) }

    @inline(__always)
    private var isCurrent: Bool { node.isLive(inLow32: generation) }

    var codingPath: [any CodingKey] { isCurrent ? node.codingPath : [] }
    var count: Int? { isCurrent ? node.values.count : 0 }
    var isAtEnd: Bool { !isCurrent || currentIndex >= node.values.count }

    /// The next element's entry. The index advances only once the element has decoded, as in
    /// `JSONDecoder`, so a failed read can be retried as another type.
    @inline(__always)
    private func nextEntry(_ type: Any.Type) throws -> Int {
        guard isCurrent else { throw staleDecodingContainerError([]) }
        guard currentIndex < node.values.count else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: node.codingPath(appending: currentIndex),
                    debugDescription: "Unkeyed container is at end"))
        }
        return currentIndex
    }

    @inline(__always)
    private mutating func advance() {
        index &+= 1
        if node.readPrefix < currentIndex { node.readPrefix = currentIndex }
    }

    @inline(__always)
    private mutating func read<T>(_ type: T.Type, _ convert: (MappedValue, CodingPosition) throws -> T) throws -> T {
        let entry = try nextEntry(T.self)
        let result = try convert(node.values[entry], CodingPosition(node: node, index: entry))
        advance()
        return result
    }

    mutating func decodeNil() throws -> Bool {
        let entry = try nextEntry(Never.self)
        guard node.values[entry].isNull else { return false }
        advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try read(Bool.self) { try $0.bool(at: $1) } }
    mutating func decode(_ type: String.Type) throws -> String { try read(String.self) { try $0.string(at: $1) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try read(Double.self) { try $0.double(at: $1) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try read(Float.self) { try $0.float(at: $1) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }

    @inline(__always)
    private mutating func integer<I: FixedWidthInteger>() throws -> I {
        try read(I.self) { try $0.integer(I.self, at: $1) }
    }

    /// Reads an `Int128`/`UInt128` (see `WideIntegers.swift`).
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decodeWide<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        try read(I.self) { try $0.wideInteger(I.self, at: $1) }
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let entry = try nextEntry(T.self)
        let node = node
        let result = try unmanagedDecoder._withUnsafeGuaranteedRef { try $0.decode(T.self, entry: entry, of: node) }
        advance()
        return result
    }

    /// The next element's entry for `decodeIfPresent`, or `nil` — and the element consumed — when
    /// it is null or the container is at its end. `JSONDecoder` answers nil at the end rather than
    /// throwing, and still moves `currentIndex` on (past `count`, `isAtEnd` staying true), so a type
    /// that writes optionals by omitting them reads back the same through either.
    @inline(__always)
    private mutating func presentEntry() throws -> Int? {
        guard UInt32(truncatingIfNeeded: node.generation) == generation else {
            throw staleDecodingContainerError(node.codingPath)
        }
        guard currentIndex < node.values.count else {
            index &+= 1
            return nil
        }
        guard !node.values[currentIndex].isNull else {
            advance()
            return nil
        }
        return currentIndex
    }

    @inline(__always)
    private mutating func readIfPresent<T>(_ type: T.Type, _ convert: (MappedValue, CodingPosition) throws -> T) throws
        -> T?
    {
        guard let entry = try presentEntry() else { return nil }
        let result = try convert(node.values[entry], CodingPosition(node: node, index: entry))
        advance()
        return result
    }

    mutating func decodeIfPresent(_ type: Bool.Type) throws -> Bool? {
        try readIfPresent(Bool.self) { try $0.bool(at: $1) }
    }
    mutating func decodeIfPresent(_ type: String.Type) throws -> String? {
        try readIfPresent(String.self) { try $0.string(at: $1) }
    }
    mutating func decodeIfPresent(_ type: Double.Type) throws -> Double? {
        try readIfPresent(Double.self) { try $0.double(at: $1) }
    }
    mutating func decodeIfPresent(_ type: Float.Type) throws -> Float? {
        try readIfPresent(Float.self) { try $0.float(at: $1) }
    }
    mutating func decodeIfPresent(_ type: Int.Type) throws -> Int? { try optionalInteger() }
    mutating func decodeIfPresent(_ type: Int8.Type) throws -> Int8? { try optionalInteger() }
    mutating func decodeIfPresent(_ type: Int16.Type) throws -> Int16? { try optionalInteger() }
    mutating func decodeIfPresent(_ type: Int32.Type) throws -> Int32? { try optionalInteger() }
    mutating func decodeIfPresent(_ type: Int64.Type) throws -> Int64? { try optionalInteger() }
    mutating func decodeIfPresent(_ type: UInt.Type) throws -> UInt? { try optionalInteger() }
    mutating func decodeIfPresent(_ type: UInt8.Type) throws -> UInt8? { try optionalInteger() }
    mutating func decodeIfPresent(_ type: UInt16.Type) throws -> UInt16? { try optionalInteger() }
    mutating func decodeIfPresent(_ type: UInt32.Type) throws -> UInt32? { try optionalInteger() }
    mutating func decodeIfPresent(_ type: UInt64.Type) throws -> UInt64? { try optionalInteger() }

    @inline(__always)
    private mutating func optionalInteger<I: FixedWidthInteger>() throws -> I? {
        try readIfPresent(I.self) { try $0.integer(I.self, at: $1) }
    }

    /// Reads an optional `Int128`/`UInt128` (see `WideIntegers.swift`).
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    mutating func decodeWideIfPresent<I: FixedWidthInteger>(_ type: I.Type) throws -> I? {
        try readIfPresent(I.self) { try $0.wideInteger(I.self, at: $1) }
    }

    mutating func decodeIfPresent<T: Decodable>(_ type: T.Type) throws -> T? {
        guard let entry = try presentEntry() else { return nil }
        let node = node
        let result = try unmanagedDecoder._withUnsafeGuaranteedRef { try $0.decode(T.self, entry: entry, of: node) }
        advance()
        return result
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        let entry = try nextEntry(KeyedDecodingContainer<NestedKey>.self)
        guard case .keyed(let child) = node.values[entry] else {
            throw node.values[entry].mismatch(
                KeyedDecodingContainer<NestedKey>.self, at: CodingPosition(node: node, index: entry))
        }
        advance()
        return decoder.keyedContainer(for: child, keyedBy: NestedKey.self)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let entry = try nextEntry(UnkeyedDecodingContainer.self)
        guard case .unkeyed(let child) = node.values[entry] else {
            throw node.values[entry].mismatch(
                UnkeyedDecodingContainer.self, at: CodingPosition(node: node, index: entry))
        }
        advance()
        return MappingUnkeyedDecodingContainer(decoder: decoder, node: child)
    }

    mutating func superDecoder() throws -> any Decoder {
        let entry = try nextEntry(Decoder.self)
        advance()
        return decoder.makeSuperDecoder(parent: node, entry: entry)
    }
}

/// Reads the decoder's current value. Two words, so it lives inline in the
/// `any SingleValueDecodingContainer` existential and asking for one allocates nothing.
struct MappingSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: MappingDecoder
    let level: UInt64

    var codingPath: [any CodingKey] { decoder.accepts(level: level) ? decoder.codingPath : [] }

    /// Runs `convert` on the current value where it lies in its node, once the container is known
    /// to be live: no copy of the value (a retain and release for a string) just to look at it.
    @inline(__always)
    private func read<R>(_ convert: (MappedValue, CodingPosition) throws -> R) throws -> R {
        guard decoder.accepts(level: level) else { throw staleDecodingContainerError([]) }
        let position = decoder.position
        return try convert(position.value, position)
    }

    func decodeNil() -> Bool { decoder.accepts(level: level) && decoder.position.value.isNull }
    func decode(_ type: Bool.Type) throws -> Bool { try read { try $0.bool(at: $1) } }
    func decode(_ type: String.Type) throws -> String { try read { try $0.string(at: $1) } }
    func decode(_ type: Double.Type) throws -> Double { try read { try $0.double(at: $1) } }
    func decode(_ type: Float.Type) throws -> Float { try read { try $0.float(at: $1) } }
    func decode(_ type: Int.Type) throws -> Int { try read { try $0.integer(Int.self, at: $1) } }
    func decode(_ type: Int8.Type) throws -> Int8 { try read { try $0.integer(Int8.self, at: $1) } }
    func decode(_ type: Int16.Type) throws -> Int16 { try read { try $0.integer(Int16.self, at: $1) } }
    func decode(_ type: Int32.Type) throws -> Int32 { try read { try $0.integer(Int32.self, at: $1) } }
    func decode(_ type: Int64.Type) throws -> Int64 { try read { try $0.integer(Int64.self, at: $1) } }
    func decode(_ type: UInt.Type) throws -> UInt { try read { try $0.integer(UInt.self, at: $1) } }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try read { try $0.integer(UInt8.self, at: $1) } }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try read { try $0.integer(UInt16.self, at: $1) } }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try read { try $0.integer(UInt32.self, at: $1) } }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try read { try $0.integer(UInt64.self, at: $1) } }

    /// Reads an `Int128`/`UInt128` (see `WideIntegers.swift`).
    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    func decodeWide<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        try read { try $0.wideInteger(I.self, at: $1) }
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        guard decoder.accepts(level: level) else { throw staleDecodingContainerError([]) }
        let position = decoder.position
        if let kind = PrimitiveKind(T.self), !position.value.isDataAsBytes(kind) {
            return try position.primitive(kind, as: T.self)
        }
        // The wrapped value is read from this same position, one level deeper.
        return try decoder.decodeNested(T.self, in: position.node, at: position.index)
    }
}
