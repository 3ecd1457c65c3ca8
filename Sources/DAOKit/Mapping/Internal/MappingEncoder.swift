import CDAOKitSupport
import Foundation

/// The `Encoder` half of ``EntityMapper``: turns an `Encodable` value into a ``MappedValue`` tree.
///
/// Instead of creating an encoder per nested value, one encoder walks the whole value: its
/// state is "the value being encoded goes into entry `slot` of node `target`", saved on the call
/// stack and restored around every nested value (see ``encodeNested(_:into:slot:)``). Containers
/// hold the node they write to, so they stay correct whatever the encoder does afterwards.
///
/// User code never sees this object, which is reused from call to call: it gets an
/// ``EncoderHandle`` for one nesting level, which refuses to work once that level is over.
final class MappingEncoder {
    let arena: CodingArena
    /// The node that receives the value currently being encoded.
    ///
    /// Unretained, so that entering and leaving a nested value (which saves and restores it) costs
    /// no retain and release: while a call runs, every node it points at is live, held by the
    /// call's arena, and once the call has ended nothing reads it before the next call sets it —
    /// every use by user code (handles, single-value containers) is behind ``accepts(level:)``.
    /// The node the encoder was made with is held by ``initialTarget``.
    var target: ContainerNode {
        @inline(__always) get { unmanagedTarget.takeUnretainedValue() }
        @inline(__always) set { unmanagedTarget = .passUnretained(newValue) }
    }
    @exclusivity(unchecked) private var unmanagedTarget: Unmanaged<ContainerNode>
    /// Keeps the node given to `init` alive (a session's placeholder, a super encoder's node).
    private let initialTarget: ContainerNode
    /// The entry of `target` that receives it.
    @exclusivity(unchecked) var slot: Int
    /// Identifies the nesting level the encoder is at; handles and single-value containers made
    /// for another level are refused.
    /// Only this encoder's own thread reads or writes it: ``accepts(level:)`` checks the thread first.
    @exclusivity(unchecked) var level: UInt64
    /// Whether the current level has stored anything at the slot yet.
    @exclusivity(unchecked) var didStore = false
    /// For the encoder `superEncoder()` makes, the node it writes into (see ``CoderAnchor``).
    private let anchor: CoderAnchor?
    /// Reused keyed containers; never touched re-entrantly (it calls no user code).
    @exclusivity(unchecked) private var keyedContainers = ContainerCache()

    init(arena: CodingArena, target: ContainerNode, slot: Int, anchored: Bool = false) {
        self.arena = arena
        self.unmanagedTarget = .passUnretained(target)
        self.initialTarget = target
        self.slot = slot
        self.level = arena.nextLevel()
        self.anchor = anchored ? CoderAnchor(target) : nil
    }

    /// Whether a handle or container made for `level` may still use this encoder: the level is
    /// still running, on this thread (the encoder's, which never changes: see `ContainerNode.ownerThread`).
    @inline(__always)
    func accepts(level handleLevel: UInt64) -> Bool {
        ownerThread == daokit_current_thread_identity() && level == handleLevel && anchor?.isCurrent != false
    }

    /// The thread that made this encoder and the only one that uses it.
    private let ownerThread = daokit_current_thread_identity()

    /// What user code gets for the current level.
    @inline(__always)
    var handle: EncoderHandle { EncoderHandle(encoder: self, level: level) }

    var codingPath: [any CodingKey] { target.codingPath(appending: slot) }

    /// Encodes a call's top-level value into `root`.
    func encodeTopLevel<T: Encodable>(_ value: T, into root: ContainerNode) throws {
        target = root
        slot = 0
        level = arena.nextLevel()
        didStore = false
        if let primitive = MappedValue(primitive: value) {
            root.values[0] = primitive
            return
        }
        try value.encode(to: handle)
        if !didStore { root.values[0] = .keyed(arena.makeNode(unkeyed: false, parent: root, index: 0)) }
        if let deferred = arena.deferredError { throw deferred }
    }

    /// Stores `value` at the current slot (single-value containers).
    @inline(__always)
    func store(_ value: consuming MappedValue) {
        var pending = Optional(value)
        let slot = slot
        unmanagedTarget._withUnsafeGuaranteedRef { $0.values[slot] = pending.take().unsafelyUnwrapped }
        didStore = true
    }

    /// Encodes a value that is not a primitive into entry `slot` of `node`, as a nested level.
    func encodeNested<T: Encodable>(_ value: T, into node: ContainerNode, slot newSlot: Int) throws {
        let savedTarget = unmanagedTarget
        let savedSlot = slot
        let savedLevel = level
        let savedDidStore = didStore
        target = node
        slot = newSlot
        level = arena.nextLevel()
        didStore = false
        arena.depth &+= 1
        defer {
            arena.depth &-= 1
            unmanagedTarget = savedTarget
            slot = savedSlot
            level = savedLevel
            didStore = savedDidStore
        }
        do {
            if arena.depth > NestingLimits.unchecked {
                try arena.stackGuard.check(depth: arena.depth, at: node.codingPath(appending: newSlot))
            }
            try value.encode(to: handle)
        } catch {
            arena.noteUserError(error, at: node.codingPath(appending: newSlot))
            throw error
        }
        if !didStore {
            // Like JSONEncoder: a value that encodes nothing is an empty keyed container.
            node.values[newSlot] = .keyed(arena.makeNode(unkeyed: false, parent: node, index: newSlot))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if didStore {
            if case .keyed(let existing) = target.values[slot] {
                // A second container on one value: class hierarchies sharing the encoder.
                return keyedContainers.encodingContainer(for: existing, keyedBy: Key.self, encoder: self)
            }
            deferMisuse("encode(to:) asked for a keyed container after storing another kind of value")
        }
        let node = unmanagedTarget._withUnsafeGuaranteedRef { arena.makeNode(unkeyed: false, parent: $0, index: slot) }
        store(.keyed(node))
        return keyedContainers.encodingContainer(for: node, keyedBy: Key.self, encoder: self)
    }

    /// Ends a `map` call for this encoder: lets go of the container boxes nobody holds any more.
    func endCall() {
        keyedContainers.reclaim()
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if didStore {
            if case .unkeyed(let existing) = target.values[slot] {
                return MappingUnkeyedEncodingContainer(encoder: self, node: existing)
            }
            deferMisuse("encode(to:) asked for an unkeyed container after storing another kind of value")
        }
        let node = arena.makeNode(unkeyed: true, parent: target, index: slot)
        store(.unkeyed(node))
        return MappingUnkeyedEncodingContainer(encoder: self, node: node)
    }

    /// Records a misuse by user code that the `Encoder` API gives no way to throw at once.
    private func deferMisuse(_ message: String) {
        guard arena.deferredError == nil else { return }
        arena.deferredError = EncodingError.invalidValue(
            target.values[slot].kindName,
            EncodingError.Context(codingPath: codingPath, debugDescription: message, underlyingError: MapperMisuse()))
    }

    /// An encoder for `superEncoder()`: writes into entry `slot` of `node`.
    ///
    /// The entry holds an empty keyed container until the superclass stores something — what
    /// `JSONEncoder` writes for a super encoder nobody uses — but the encoder counts as not having
    /// stored anything yet, so the superclass may ask for any kind of container, or store a single
    /// value, in its place. The arena keeps the encoder alive for the rest of the call, because the
    /// containers it hands out refer to it without retaining it.
    func makeSuperEncoder(node: ContainerNode, slot: Int) -> EncoderHandle {
        node.values[slot] = .keyed(arena.makeNode(unkeyed: false, parent: node, index: slot))
        let encoder = MappingEncoder(arena: arena, target: node, slot: slot, anchored: true)
        arena.retain(superCoder: encoder)
        return encoder.handle
    }
}

/// The `Encoder` user code receives: the encoder, and the nesting level it was made for.
///
/// Two words, so it fits the `any Encoder` existential's inline buffer and costs no allocation.
/// Once its level has ended (its `encode(to:)` returned, or its mapping finished) every request
/// is refused — containers come back detached and single-value writes throw — so a kept encoder
/// can neither write into a later mapping nor touch recycled storage.
struct EncoderHandle: Encoder {
    let encoder: MappingEncoder
    let level: UInt64

    var codingPath: [any CodingKey] { encoder.accepts(level: level) ? encoder.codingPath : [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        guard encoder.accepts(level: level) else {
            return KeyedEncodingContainer(MappingKeyedEncodingContainer<Key>.detached())
        }
        return encoder.container(keyedBy: Key.self)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        guard encoder.accepts(level: level) else { return MappingUnkeyedEncodingContainer.detached() }
        return encoder.unkeyedContainer()
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        MappingSingleValueEncodingContainer(encoder: encoder, level: level)
    }

    /// What a stale container hands out for `superEncoder()`: a handle no level ever matches.
    static func detached() -> EncoderHandle {
        EncoderHandle(encoder: DetachedCoders.encoder, level: .max)
    }
}

/// The encoder detached handles and containers refer to: never used for encoding, and never
/// deallocated, so an unretained reference to it is always valid.
enum DetachedCoders {
    nonisolated(unsafe) static let encoder: MappingEncoder = {
        let node = ContainerNode()
        node.isUnkeyed = true
        node.values.append(.null)
        return MappingEncoder(arena: CodingArena(), target: node, slot: 0)
    }()
}

/// Marks the `EncodingError`s and `DecodingError`s the mapper raises itself for misuse of the
/// coders (a container used after its mapping, two kinds of container for one value), so that
/// they are reported as corrupt data rather than as the type's own error.
struct MapperMisuse: Error {}

/// Thrown by a container that user code kept and used after its `map` call had finished.
func staleContainerError(_ path: [any CodingKey]) -> EncodingError {
    EncodingError.invalidValue(
        "stale container",
        EncodingError.Context(
            codingPath: path,
            debugDescription: "A container was used after the mapping that created it had finished",
            underlyingError: MapperMisuse()))
}
