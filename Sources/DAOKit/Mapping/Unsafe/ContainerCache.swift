/// Reuses the boxes behind `KeyedEncodingContainer` and `KeyedDecodingContainer` across values
/// of the same `CodingKey` type.
///
/// Every `container(keyedBy:)` call makes the standard library allocate a box for the container and
/// look up two generic metadata records — a third of the cost of mapping a flat struct. A coder
/// keeps one box per key type here and points it at the next node through its ``ContainerCursor``.
///
/// Reuse is sound only while nothing else holds the box, and that is exactly what
/// `isKnownUniquelyReferenced` tells: user code holding a container (in a local while it decodes
/// a nested value of the same type, or kept after `init(from:)` returned) holds a reference, so the
/// box is not reused and a fresh one is made instead. A box is retargeted only when the cache's
/// reference is the only one.
///
/// The cache stores the boxes type-erased, which relies on `KeyedEncodingContainer` and
/// `KeyedDecodingContainer` being a single reference to a native Swift object; ``isSupported``
/// checks that layout once and the cache stands aside (every container fresh) if it ever changes.
struct ContainerCache: ~Copyable {
    private struct Entry {
        let keyType: ObjectIdentifier
        var box: ErasedBox
        let cursor: ContainerCursor
    }

    /// The static type the cache gives the standard library's box objects. Only their reference
    /// counts are ever used through it (retain, release, `isKnownUniquelyReferenced`), which work
    /// the same for every native Swift object whatever its class; the object is freed through its
    /// real class when the last reference goes. (`AnyObject` would do, but
    /// `isKnownUniquelyReferenced` on `AnyObject` was seen to answer `false` for unique objects in
    /// some builds on Linux, which would silently disable the cache.)
    private final class ErasedBox {}

    private var entries = NodeBuffer<Entry>()

    /// Enough for the key types of a realistic model graph; beyond it, containers are just fresh.
    private static let capacity = 32

    static let isSupported: Bool =
        MemoryLayout<KeyedEncodingContainer<MappingKey>>.size == MemoryLayout<ErasedBox>.size
        && MemoryLayout<KeyedDecodingContainer<MappingKey>>.size == MemoryLayout<ErasedBox>.size

    /// A keyed encoding container over `node`, reusing this key type's box when it is free.
    mutating func encodingContainer<Key: CodingKey>(
        for node: ContainerNode, keyedBy type: Key.Type, encoder: MappingEncoder
    ) -> KeyedEncodingContainer<Key> {
        let slot = reusableSlot(for: Key.self)
        if slot >= 0 {
            entries[slot].cursor.retarget(to: node)
            return unsafeBitCast(entries[slot].box, to: KeyedEncodingContainer<Key>.self)
        }
        let cursor = ContainerCursor(node: node)
        let container = KeyedEncodingContainer(MappingKeyedEncodingContainer<Key>(encoder: encoder, cursor: cursor))
        remember(unsafeBitCast(container, to: ErasedBox.self), cursor: cursor, for: Key.self, replacing: slot)
        return container
    }

    /// A keyed decoding container over `node`, reusing this key type's box when it is free.
    mutating func decodingContainer<Key: CodingKey>(
        for node: ContainerNode, keyedBy type: Key.Type, decoder: MappingDecoder
    ) -> KeyedDecodingContainer<Key> {
        let slot = reusableSlot(for: Key.self)
        if slot >= 0 {
            entries[slot].cursor.retarget(to: node)
            return unsafeBitCast(entries[slot].box, to: KeyedDecodingContainer<Key>.self)
        }
        let cursor = ContainerCursor(node: node)
        let container = KeyedDecodingContainer(MappingKeyedDecodingContainer<Key>(decoder: decoder, cursor: cursor))
        remember(unsafeBitCast(container, to: ErasedBox.self), cursor: cursor, for: Key.self, replacing: slot)
        return container
    }

    /// The entry whose box can be retargeted (≥ 0); otherwise `-2 - index` of an entry for the key
    /// type whose box is in use, or -1 when the key type has no entry.
    @inline(__always)
    private mutating func reusableSlot<Key>(for type: Key.Type) -> Int {
        guard Self.isSupported else { return -1 }
        let keyType = ObjectIdentifier(Key.self)
        var index = 0
        while index < entries.count {
            if entries[index].keyType == keyType {
                return isKnownUniquelyReferenced(&entries.pointer(at: index).pointee.box) ? index : -2 - index
            }
            index &+= 1
        }
        return -1
    }

    /// Keeps a fresh box for reuse: in place of a busy one of the same key type, or as a new entry.
    private mutating func remember<Key>(_ box: ErasedBox, cursor: ContainerCursor, for type: Key.Type, replacing slot: Int) {
        guard Self.isSupported else { return }
        let entry = Entry(keyType: ObjectIdentifier(Key.self), box: box, cursor: cursor)
        if slot <= -2 {
            entries[-2 - slot] = entry
        } else if entries.count < Self.capacity {
            entries.append(entry)
        }
    }
}

/// Where a keyed container reads or writes: a node, and the generation the node had when the
/// container was pointed at it.
///
/// A container refers to its node through a cursor so that ``ContainerCache`` can point a reused
/// container at another node. The generation check in every container operation is what keeps a
/// container user code held on to from touching a node that has since been recycled.
final class ContainerCursor {
    @exclusivity(unchecked) private(set) var node: ContainerNode
    /// `node` again, without ownership: what the per-field paths use (through
    /// `_withUnsafeGuaranteedRef`), so that using the node costs no retain and release. Sound
    /// because it is always the node `node` holds (both are set together), and a container uses it
    /// only while it holds the cursor and runs no user code.
    @exclusivity(unchecked) private(set) var borrowedNode: Unmanaged<ContainerNode>
    @exclusivity(unchecked) private(set) var generation: UInt64

    init(node: ContainerNode) {
        self.node = node
        self.borrowedNode = .passUnretained(node)
        self.generation = node.generation
    }

    /// A cursor whose generation never matches its node's: every operation through it fails.
    static func detached() -> ContainerCursor {
        let cursor = ContainerCursor(node: ContainerNode())
        cursor.generation &+= 1
        return cursor
    }

    @inline(__always)
    func retarget(to node: ContainerNode) {
        self.node = node
        borrowedNode = .passUnretained(node)
        generation = node.generation
    }

    /// Whether the node is still the one the container was pointed at.
    @inline(__always)
    var isCurrent: Bool { node.isLive(in: generation) }
}
