/// Reuses the boxes behind `KeyedEncodingContainer` and `KeyedDecodingContainer` across values
/// of the same `CodingKey` type, and keeps alive the cursors the decoding boxes point at.
///
/// Every `container(keyedBy:)` call makes the standard library allocate a box for the container and
/// look up two generic metadata records — a third of the cost of mapping a flat struct. A coder
/// keeps its boxes here and points a free one at the next node through its ``ContainerCursor``.
///
/// Reuse is sound only while nothing else holds the box, and that is exactly what
/// `isKnownUniquelyReferenced` tells: user code holding a container (in a local while it decodes
/// a nested value of the same type, or kept after `init(from:)` returned) holds a reference, so the
/// box is not reused and another is made. A box is retargeted only when the cache's reference is
/// the only one.
///
/// Cursor ownership. The standard library's decoding box copies its container for every call, so
/// ``MappingKeyedDecodingContainer`` refers to its cursor without retaining it (no retain and
/// release per field); the cache is what keeps the cursor alive, for at least as long as the box:
/// - every box it makes stays in the cache with its cursor: in `entries` (reusable, up to
///   ``capacity``) or, when those are full, in `overflow`, whose entries are let go by
///   ``reclaim()`` (at the end of every `map` call) once the cache holds the only reference;
/// - an entry is never dropped while its box is held elsewhere;
/// - when the cache itself goes (its coder's thread ended) while user code still holds a box, that
///   box's cursor is deliberately kept alive for good: a kept container must still find its cursor
///   (and, through it, its node) to refuse to work. This leaks one cursor per container kept past
///   its thread's end — misuse — and nothing otherwise.
///
/// The cache stores the boxes type-erased, which relies on `KeyedEncodingContainer` and
/// `KeyedDecodingContainer` being a single reference to a native Swift object; ``isSupported``
/// checks that layout once. If it ever fails the cache stands aside: every encoding container is
/// fresh, and every decoding container is a ``CursorOwningKeyedDecodingContainer``, which holds its
/// cursor like any other reference (a retain and release per field).
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

    /// Boxes that may be reused, at most ``capacity`` of them.
    private var entries = NodeBuffer<Entry>()
    /// Boxes made while `entries` was full and no box of the key type was free (deep recursion of
    /// one type, or containers user code keeps): never reused, dropped by ``reclaim()`` once free.
    private var overflow = NodeBuffer<Entry>()

    /// Enough for the key types (and nesting of one type) of a realistic model graph.
    private static let capacity = 32

    static let isSupported: Bool =
        MemoryLayout<KeyedEncodingContainer<MappingKey>>.size == MemoryLayout<ErasedBox>.size
        && MemoryLayout<KeyedDecodingContainer<MappingKey>>.size == MemoryLayout<ErasedBox>.size

    init() {}

    deinit {
        Self.keepCursorsOfHeldBoxes(entries)
        Self.keepCursorsOfHeldBoxes(overflow)
    }

    /// See "Cursor ownership" above: a cursor whose box user code still holds outlives the cache.
    private static func keepCursorsOfHeldBoxes(_ buffer: borrowing NodeBuffer<Entry>) {
        for index in buffer.indices where !isKnownUniquelyReferenced(&buffer.pointer(at: index).pointee.box) {
            _ = Unmanaged.passRetained(buffer[index].cursor)
        }
    }

    /// A keyed encoding container over `node`, reusing a box of this key type when one is free.
    mutating func encodingContainer<Key: CodingKey>(
        for node: ContainerNode, keyedBy type: Key.Type, encoder: MappingEncoder
    ) -> KeyedEncodingContainer<Key> {
        guard Self.isSupported else {
            return KeyedEncodingContainer(
                MappingKeyedEncodingContainer<Key>(encoder: encoder, cursor: ContainerCursor(node: node)))
        }
        if let slot = freeSlot(for: Key.self) {
            retargetCursor(at: slot, to: node)
            return unsafeBitCast(entries[slot].box, to: KeyedEncodingContainer<Key>.self)
        }
        let cursor = ContainerCursor(node: node)
        let container = KeyedEncodingContainer(MappingKeyedEncodingContainer<Key>(encoder: encoder, cursor: cursor))
        keep(unsafeBitCast(container, to: ErasedBox.self), cursor: cursor, for: Key.self)
        return container
    }

    /// A keyed decoding container over `node`, reusing a box of this key type when one is free.
    mutating func decodingContainer<Key: CodingKey>(
        for node: ContainerNode, keyedBy type: Key.Type, decoder: MappingDecoder
    ) -> KeyedDecodingContainer<Key> {
        guard Self.isSupported else {
            return KeyedDecodingContainer(
                CursorOwningKeyedDecodingContainer<Key>(decoder: decoder, cursor: ContainerCursor(node: node)))
        }
        if let slot = freeSlot(for: Key.self) {
            retargetCursor(at: slot, to: node)
            return unsafeBitCast(entries[slot].box, to: KeyedDecodingContainer<Key>.self)
        }
        let cursor = ContainerCursor(node: node)
        let container = KeyedDecodingContainer(MappingKeyedDecodingContainer<Key>(decoder: decoder, cursor: cursor))
        // Before the container is handed out: from here on the cache owns the cursor.
        keep(unsafeBitCast(container, to: ErasedBox.self), cursor: cursor, for: Key.self)
        return container
    }

    /// Points the cursor of entry `slot` at `node`, using the cursor at +0: the entry holds it, and
    /// nothing here can drop the entry.
    @inline(__always)
    private func retargetCursor(at slot: Int, to node: ContainerNode) {
        Unmanaged.passUnretained(entries[slot].cursor)._withUnsafeGuaranteedRef { $0.retarget(to: node) }
    }

    /// Drops the overflow boxes nobody holds any more. Called when a `map` call ends.
    @inline(__always)
    mutating func reclaim() {
        if !overflow.isEmpty { reclaimOverflow() }
    }

    @inline(never)
    private mutating func reclaimOverflow() {
        var index = 0
        while index < overflow.count {
            if isKnownUniquelyReferenced(&overflow.pointer(at: index).pointee.box) {
                // Drops the free entry (its box, then its cursor) by moving the last one over it.
                let last = overflow.removeLast()
                if index < overflow.count { overflow[index] = last }
            } else {
                index &+= 1
            }
        }
    }

    /// The entry of this key type whose box nothing else holds, if any.
    @inline(__always)
    private mutating func freeSlot<Key>(for type: Key.Type) -> Int? {
        let keyType = ObjectIdentifier(Key.self)
        var index = 0
        while index < entries.count {
            if entries[index].keyType == keyType && isKnownUniquelyReferenced(&entries.pointer(at: index).pointee.box) {
                return index
            }
            index &+= 1
        }
        return nil
    }

    /// Keeps a new box and its cursor: reusable while there is room, in the overflow otherwise.
    private mutating func keep<Key>(_ box: ErasedBox, cursor: ContainerCursor, for type: Key.Type) {
        let entry = Entry(keyType: ObjectIdentifier(Key.self), box: box, cursor: cursor)
        if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            overflow.append(entry)
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
