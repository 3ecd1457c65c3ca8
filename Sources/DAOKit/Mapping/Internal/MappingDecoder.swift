import CDAOKitSupport
import Foundation

/// The `Decoder` half of ``EntityMapper``: reads a ``MappedValue`` tree as a `Decodable` type.
///
/// Like ``MappingEncoder``, one decoder walks the whole tree. Its state is where the value being
/// decoded sits — entry `index` of `node` — saved on the call stack and restored around every
/// nested value. Keeping a position rather than a copy of the value means entering a nested
/// value copies no payload. User code gets a ``DecoderHandle`` for one nesting level.
final class MappingDecoder {
    let arena: CodingArena
    /// The node holding the value being decoded.
    ///
    /// Unretained, for the reason and under the rule given for `MappingEncoder.target`; the node
    /// given to `init` is held by ``initialNode``.
    var node: ContainerNode {
        @inline(__always) get { unmanagedNode.takeUnretainedValue() }
        @inline(__always) set { unmanagedNode = .passUnretained(newValue) }
    }
    @exclusivity(unchecked) private var unmanagedNode: Unmanaged<ContainerNode>
    /// Keeps the node given to `init` alive (a session's placeholder, a super decoder's node).
    private let initialNode: ContainerNode
    /// The entry of `node` holding the value.
    @exclusivity(unchecked) var index: Int
    /// Identifies the current nesting level (see `MappingEncoder.level`).
    /// Only this decoder's own thread reads or writes it: ``accepts(level:)`` checks the thread first.
    @exclusivity(unchecked) var level: UInt64
    /// For a decoder `superDecoder()` makes, the node it reads (see ``CoderAnchor``).
    private let anchor: CoderAnchor?
    /// Reused keyed containers; never touched re-entrantly (it calls no user code).
    @exclusivity(unchecked) private var keyedContainers = ContainerCache()

    init(arena: CodingArena, node: ContainerNode, index: Int, anchored: Bool = false) {
        self.arena = arena
        self.unmanagedNode = .passUnretained(node)
        self.initialNode = node
        self.index = index
        self.level = arena.nextLevel()
        self.anchor = anchored ? CoderAnchor(node) : nil
    }

    /// Whether a handle or container made for `level` may still use this decoder: the level is
    /// still running, on this thread (the decoder's, which never changes: see `ContainerNode.ownerThread`).
    @inline(__always)
    func accepts(level handleLevel: UInt64) -> Bool {
        ownerThread == daokit_current_thread_identity() && level == handleLevel && anchor?.isCurrent != false
    }

    /// The thread that made this decoder and the only one that uses it.
    private let ownerThread = daokit_current_thread_identity()

    /// What user code gets for the current level.
    @inline(__always)
    var handle: DecoderHandle { DecoderHandle(decoder: self, level: level) }

    /// The value being decoded at the current level.
    var value: MappedValue { node.values[index] }

    /// Where the value being decoded lies; made without a retain of the node (see `CodingPosition`).
    var position: CodingPosition {
        let index = index
        return unmanagedNode._withUnsafeGuaranteedRef { CodingPosition(node: $0, index: index) }
    }
    var codingPath: [any CodingKey] { node.codingPath(appending: index) }

    /// Decodes a call's top-level value from `root`, as `type` — which may be a subclass of `T`.
    func decodeTopLevel<T: Decodable>(_ type: T.Type, from root: ContainerNode) throws -> T {
        node = root
        index = 0
        level = arena.nextLevel()
        if let kind = PrimitiveKind(T.self), !root.values[0].isDataAsBytes(kind) {
            return try position.primitive(kind, as: T.self)
        }
        // An array's type is never a subclass, so `T.self` is the type decoded.
        if case .unkeyed(let elements) = root.values[0], let arrayType = Self.reservingArrayType(T.self) {
            return try decodeArray(arrayType, as: T.self, elements: elements)
        }
        // The same witness call as `T(from:)`, with the dynamic metatype as its `Self` value, so
        // the common case (`type == T.self`) costs nothing more.
        return try type.init(from: handle)
    }

    /// Decodes entry `entry` of `parent` as `T`, a type that is not a primitive, one level deeper.
    func decodeNested<T: Decodable>(_ type: T.Type, in parent: ContainerNode, at entry: Int) throws -> T {
        let savedNode = unmanagedNode
        let savedIndex = index
        let savedLevel = level
        node = parent
        index = entry
        level = arena.nextLevel()
        arena.depth &+= 1
        defer {
            arena.depth &-= 1
            unmanagedNode = savedNode
            index = savedIndex
            level = savedLevel
        }
        do {
            if arena.depth > NestingLimits.unchecked {
                try arena.stackGuard.check(depth: arena.depth, at: parent.codingPath(appending: entry))
            }
            if case .unkeyed(let elements) = parent.values[entry], let arrayType = Self.reservingArrayType(T.self) {
                return try decodeArray(arrayType, as: T.self, elements: elements)
            }
            return try T(from: handle)
        } catch {
            arena.noteUserError(error, at: parent.codingPath(appending: entry))
            throw error
        }
    }

    /// Decodes entry `entry` of `parent` as `T`, by value when `T` is a primitive.
    @inline(__always)
    func decode<T: Decodable>(_ type: T.Type, entry: Int, of parent: ContainerNode) throws -> T {
        if let kind = PrimitiveKind(T.self), !parent.values[entry].isDataAsBytes(kind) {
            return try CodingPosition(node: parent, index: entry).primitive(kind, as: T.self)
        }
        return try decodeNested(T.self, in: parent, at: entry)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .keyed(let keyed) = position.value else {
            throw value.mismatch(KeyedDecodingContainer<Key>.self, codingPath: codingPath)
        }
        return keyedContainer(for: keyed, keyedBy: Key.self)
    }

    /// A keyed container over `node`; every keyed decoding container comes from here, so that the
    /// cache keeps its cursor alive (see `ContainerCache`).
    @inline(__always)
    func keyedContainer<Key: CodingKey>(for node: ContainerNode, keyedBy type: Key.Type) -> KeyedDecodingContainer<Key>
    {
        keyedContainers.decodingContainer(for: node, keyedBy: Key.self, decoder: self)
    }

    /// Ends a `map` call for this decoder: lets go of the container boxes nobody holds any more.
    func endCall() {
        keyedContainers.reclaim()
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .unkeyed(let unkeyed):
            return MappingUnkeyedDecodingContainer(decoder: self, node: unkeyed)
        case .data(let bytes):
            // A `Data` read as `[UInt8]` (its own Codable form): present its bytes as elements.
            let elements = arena.makeNode(unkeyed: true, parent: node, index: index)
            elements.values.reserveCapacity(bytes.count)
            for byte in bytes { elements.values.append(.uint(UInt64(byte))) }
            return MappingUnkeyedDecodingContainer(decoder: self, node: elements)
        default:
            throw value.mismatch(UnkeyedDecodingContainer.self, codingPath: codingPath)
        }
    }

    /// A decoder for `superDecoder()`/`superDecoder(forKey:)`: reads entry `entry` of `parent`. The
    /// arena keeps the decoder alive for the rest of the call, because the containers it hands out
    /// refer to it without retaining it.
    func makeSuperDecoder(parent: ContainerNode, entry: Int) -> DecoderHandle {
        let decoder = MappingDecoder(arena: arena, node: parent, index: entry, anchored: true)
        arena.retain(superCoder: decoder)
        return decoder.handle
    }

    /// A super decoder for a key the source lacks: it reads a null, as `JSONDecoder`'s does, so that
    /// decoding a value from it is `valueNotFound` at `key`. The null sits in a node of its own with
    /// the same path as `parent`, outside the tree (strict mode never sees it).
    func makeSuperDecoder(parent: ContainerNode, missingKey key: String) -> DecoderHandle {
        let standIn = arena.makeNode(unkeyed: false, parent: parent.parent, index: parent.indexInParent)
        standIn.keys.append(key)
        standIn.values.append(.null)
        return makeSuperDecoder(parent: standIn, entry: 0)
    }
}

/// The `Decoder` user code receives: the decoder, and the nesting level it was made for.
///
/// Two words, so it fits the `any Decoder` existential's inline buffer and costs no allocation.
/// Once its level has ended every request throws, so a kept decoder can neither read a later
/// mapping's values nor touch recycled storage.
struct DecoderHandle: Decoder {
    let decoder: MappingDecoder
    let level: UInt64

    var codingPath: [any CodingKey] { decoder.accepts(level: level) ? decoder.codingPath : [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard decoder.accepts(level: level) else { throw staleDecodingContainerError([]) }
        return try decoder.container(keyedBy: Key.self)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard decoder.accepts(level: level) else { throw staleDecodingContainerError([]) }
        return try decoder.unkeyedContainer()
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        guard decoder.accepts(level: level) else { throw staleDecodingContainerError([]) }
        return MappingSingleValueDecodingContainer(decoder: decoder, level: level)
    }
}

/// Thrown by a decoding container that user code kept and used after its mapping had finished.
func staleDecodingContainerError(_ path: [any CodingKey]) -> DecodingError {
    .dataCorrupted(
        DecodingError.Context(
            codingPath: path,
            debugDescription: "A container or decoder was used after the mapping that created it had finished",
            underlyingError: MapperMisuse()))
}
