import Foundation

/// The `Encoder` half of ``EntityMapper``: turns an `Encodable` value into a ``MappedValue`` tree.
///
/// Instead of creating an encoder per nested value, one encoder walks the whole value: its
/// state is "the value being encoded goes into entry `slot` of node `target`", saved on the call
/// stack and restored around every nested value (see ``encodeNested(_:into:slot:)``). Containers
/// hold the node they write to, so they stay correct whatever the encoder does afterwards.
final class MappingEncoder: Encoder {
    let arena: CodingArena
    /// The node that receives the value currently being encoded.
    @exclusivity(unchecked) var target: ContainerNode
    /// The entry of `target` that receives it.
    @exclusivity(unchecked) var slot: Int
    /// Identifies the nesting level the encoder is at, so that a single-value container used
    /// after its level ended is refused rather than writing somewhere else.
    @exclusivity(unchecked) var level: UInt32
    /// Whether the current level has stored anything at the slot yet.
    @exclusivity(unchecked) var didStore = false
    /// Reused keyed containers; never touched re-entrantly (it calls no user code).
    @exclusivity(unchecked) private var keyedContainers = ContainerCache()

    init(arena: CodingArena, target: ContainerNode, slot: Int) {
        self.arena = arena
        self.target = target
        self.slot = slot
        self.level = arena.nextLevel()
    }

    var codingPath: [any CodingKey] { target.codingPath(appending: slot) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

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
        try value.encode(to: self)
        if !didStore { root.values[0] = .keyed(arena.makeNode(unkeyed: false, parent: root, index: 0)) }
        if let deferred = arena.deferredError { throw deferred }
    }

    /// Stores `value` at the current slot (single-value containers).
    @inline(__always)
    func store(_ value: MappedValue) {
        target.values[slot] = value
        didStore = true
    }

    /// Encodes a value that is not a primitive into entry `slot` of `node`, as a nested level.
    func encodeNested<T: Encodable>(_ value: T, into node: ContainerNode, slot newSlot: Int) throws {
        let savedTarget = target, savedSlot = slot, savedLevel = level, savedDidStore = didStore
        target = node
        slot = newSlot
        level = arena.nextLevel()
        didStore = false
        arena.depth &+= 1
        defer {
            arena.depth &-= 1
            target = savedTarget
            slot = savedSlot
            level = savedLevel
            didStore = savedDidStore
        }
        if arena.depth > arena.depthLimit { try arena.refuseDeeperNesting(at: node.codingPath(appending: newSlot)) }
        do {
            try value.encode(to: self)
        } catch {
            arena.noteUserError(error, at: node.codingPath(appending: newSlot))
            throw error
        }
        arena.userErrorPath = nil
        if !didStore {
            // Like JSONEncoder: a value that encodes nothing is an empty keyed container.
            node.values[newSlot] = .keyed(arena.makeNode(unkeyed: false, parent: node, index: newSlot))
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if didStore {
            if case let .keyed(existing) = target.values[slot] {
                // A second container on one value: class hierarchies sharing the encoder.
                existing.isShared = true
                return keyedContainers.encodingContainer(for: existing, keyedBy: Key.self, encoder: self)
            }
            arena.deferredError = arena.deferredError ?? EncodingError.invalidValue(
                target.values[slot].kindName,
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "encode(to:) asked for a keyed container after storing another kind of value"))
        }
        let node = arena.makeNode(unkeyed: false, parent: target, index: slot)
        store(.keyed(node))
        return keyedContainers.encodingContainer(for: node, keyedBy: Key.self, encoder: self)
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if didStore {
            if case let .unkeyed(existing) = target.values[slot] {
                return MappingUnkeyedEncodingContainer(encoder: self, node: existing)
            }
            arena.deferredError = arena.deferredError ?? EncodingError.invalidValue(
                target.values[slot].kindName,
                EncodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "encode(to:) asked for an unkeyed container after storing another kind of value"))
        }
        let node = arena.makeNode(unkeyed: true, parent: target, index: slot)
        store(.unkeyed(node))
        return MappingUnkeyedEncodingContainer(encoder: self, node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        MappingSingleValueEncodingContainer(encoder: self, level: level)
    }

    /// An encoder for `superEncoder()`: writes into entry `slot` of `node`, which holds an empty
    /// keyed container until the superclass stores something else.
    func makeSuperEncoder(node: ContainerNode, slot: Int) -> MappingEncoder {
        node.values[slot] = .keyed(arena.makeNode(unkeyed: false, parent: node, index: slot))
        let encoder = MappingEncoder(arena: arena, target: node, slot: slot)
        encoder.didStore = true
        return encoder
    }
}

extension CodingArena {
    /// Records where a user error crossed a nesting boundary, keeping the deepest point.
    func noteUserError(_ error: any Error, at path: @autoclosure () -> [any CodingKey]) {
        guard userErrorPath == nil, !(error is DecodingError), !(error is EncodingError),
              !(error is NestingTooDeep) else { return }
        userErrorPath = path()
    }

    /// Stops a call that nests deeper than this thread's stack allows.
    func refuseDeeperNesting(at path: @autoclosure () -> [any CodingKey]) throws {
        if depthLimit >= NestingLimits.absolute {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(),
                debugDescription: "The value nests deeper than \(NestingLimits.absolute) levels"))
        }
        exceededDepthLimit = true
        throw NestingTooDeep()
    }
}

/// Thrown by a container that user code kept and used after its `map` call had finished.
func staleContainerError(_ path: [any CodingKey]) -> EncodingError {
    EncodingError.invalidValue(
        "stale container",
        EncodingError.Context(
            codingPath: path,
            debugDescription: "A container was used after the mapping that created it had finished"))
}
