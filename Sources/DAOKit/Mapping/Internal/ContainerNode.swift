import CDAOKitSupport

/// A keyed or unkeyed container in the mapped representation.
///
/// Nodes are reference types so that a container handed to user code keeps writing into the tree
/// it belongs to, the way `JSONEncoder`'s containers do, and so that they can be pooled: a
/// ``CodingArena`` hands out nodes during one `map` call and takes all of them back when the call
/// ends. Recycling bumps ``generation``; containers remember the generation they were created with
/// and refuse to touch a node that has since been recycled, so a container a user type kept after
/// `encode(to:)` returned can never corrupt or read a later mapping. A container used on a thread
/// other than the one that made its node is refused too, even while that node's mapping runs: the
/// owning thread, fixed at creation, is the only field such a container reads before refusing
/// (see ``isLive(in:)``), so it never races with the owner's writes.
///
/// Exclusivity checking is disabled on the hot fields: a live node is only ever touched by the one
/// thread running the `map` call that owns it (sessions are per thread), and no Swift access to
/// these fields overlaps another, so the dynamic checks would only cost time.
final class ContainerNode {
    /// Keys in encode order (keyed nodes only; empty for unkeyed nodes).
    @exclusivity(unchecked) var keys = NodeBuffer<String>()
    /// Values in encode order, parallel to `keys` for keyed nodes.
    @exclusivity(unchecked) var values = NodeBuffer<MappedValue>()
    /// The position the decoder expects to read next: decoders usually read keys in the order
    /// they were written, so a lookup starts here and falls back to a scan.
    @exclusivity(unchecked) var cursor: Int = 0
    /// Which of the first 64 entries the decoder has read (strict mode reports the others).
    @exclusivity(unchecked) var readMask: UInt64 = 0
    /// Read flags for entries past the first 64, allocated only for such wide nodes.
    @exclusivity(unchecked) var overflowReads: [Bool] = []
    /// For unkeyed nodes: how many leading elements the decoder has read.
    @exclusivity(unchecked) var readPrefix: Int = 0
    /// A 128-bit filter of the ASCII keys written so far (see ``append(key:value:)``).
    @exclusivity(unchecked) private var keyFilter: (UInt64, UInt64) = (0, 0)
    /// Every key and its index, kept instead of the filter once a key that is not ASCII (or not
    /// contiguous UTF-8) has been written: see ``append(key:value:)``.
    @exclusivity(unchecked) private var exactKeyIndex: [String: Int]?
    /// `StringBits.isSupported`, read once: keys are read through the string's own words (see
    /// ``asciiFilterBit(of:)`` and ``recycle()``) only when it is true.
    private let readsStringBits = StringBits.isSupported
    /// Which generation the node is in: the number of times it has been recycled. Only the owning
    /// thread reads or writes it (``isLive(in:)`` checks the thread first).
    ///
    /// It only grows, and it never passes ``retiredGeneration``: a node recycled that often is
    /// retired — never handed out again — so no container can ever see a generation it remembers
    /// come back. That is what lets the unkeyed decoding container keep only the low 32 bits.
    @exclusivity(unchecked) private(set) var generation: UInt64 = 0
    /// The thread whose arena made the node, and the only one that ever reads or writes its contents:
    /// arenas belong to one thread each, and never hand their nodes to another.
    let ownerThread = daokit_current_thread_identity()
    /// The node this one is stored in, for reconstructing coding paths; `nil` for the root.
    ///
    /// Unretained: a node is only ever read while its call runs, when its parent — made earlier in
    /// the same call — is live too, held by the call's arena (see `CodingArena.live`); recycling
    /// clears it. That saves a retain and release per node.
    @exclusivity(unchecked) unowned(unsafe) var parent: ContainerNode?
    /// This node's index in `parent.values`.
    @exclusivity(unchecked) var indexInParent: Int = 0
    /// True for unkeyed nodes.
    @exclusivity(unchecked) var isUnkeyed = false
    /// True for the one-slot node that holds a top-level value; it adds nothing to paths.
    @exclusivity(unchecked) var isRoot = false

    /// The generation of a node that has been recycled as often as 32 bits can count.
    static let retiredGeneration = UInt64(UInt32.max)

    /// Whether a container made in `generation` may use the node: the caller is on the thread the
    /// node belongs to, and the node has not been recycled since. The thread is checked first: on
    /// any other thread this reads nothing but the immutable ``ownerThread``, so a kept container
    /// touched from another thread never races with the owner's writes.
    @inline(__always)
    func isLive(in generation: UInt64) -> Bool {
        ownerThread == daokit_current_thread_identity() && self.generation == generation
    }

    /// ``isLive(in:)`` for a container that keeps only the low 32 bits of the generation.
    @inline(__always)
    func isLive(inLow32 generation: UInt32) -> Bool {
        ownerThread == daokit_current_thread_identity() && UInt32(truncatingIfNeeded: self.generation) == generation
    }

    /// Appends a keyed entry and returns its index. A key written again replaces the earlier
    /// value in place, as in a JSON object, so every key is stored once and reads find the last
    /// value written.
    ///
    /// Keys are equal when they are equal as Swift `String`s — canonically equivalent, as the keys of
    /// `JSONEncoder`'s dictionaries are. Looking for the key in every append would make writing a
    /// struct quadratic, so a 128-bit filter of the keys' bytes answers "certainly new" for almost
    /// every key, and only a possible repeat is looked for. The filter is exact only for ASCII keys,
    /// which are equal exactly when their bytes are — every synthesized `CodingKeys` case. The first
    /// key that is not ASCII (`"\u{212A}"`, KELVIN SIGN, equals `"K"`) switches the node to a
    /// dictionary of its keys, which hashes by canonical equivalence.
    ///
    /// Both are consumed: the caller's own copies move into the node, with no retain and release
    /// of a payload string per field.
    @inline(__always)
    @discardableResult
    func append(key: consuming String, value: consuming MappedValue) -> Int {
        guard exactKeyIndex == nil, let bit = asciiFilterBit(of: key) else {
            return appendLookingUp(key: key, value: value)
        }
        if filterHas(bit), let existing = keys.firstIndex(of: key) {
            values[existing] = value
            return existing
        }
        if bit < 64 { keyFilter.0 |= 1 &<< bit } else { keyFilter.1 |= 1 &<< (bit &- 64) }
        keys.append(key)
        values.append(value)
        return values.count &- 1
    }

    /// The index of `key` when it has been written, found the way ``append(key:value:)`` finds a
    /// repeat.
    func writtenIndex(ofKey key: String) -> Int? {
        if let exactKeyIndex { return exactKeyIndex[key] }
        guard let bit = asciiFilterBit(of: key) else { return keys.firstIndex(of: key) }
        return filterHas(bit) ? keys.firstIndex(of: key) : nil
    }

    /// Whether the key filter has `bit` set: whether a key with that bit may have been written.
    @inline(__always)
    private func filterHas(_ bit: UInt64) -> Bool {
        bit < 64 ? keyFilter.0 & (1 &<< bit) != 0 : keyFilter.1 & (1 &<< (bit &- 64)) != 0
    }

    /// ``append(key:value:)`` for a node that holds, or is about to hold, a key that is not ASCII.
    @inline(never)
    private func appendLookingUp(key: String, value: consuming MappedValue) -> Int {
        if exactKeyIndex == nil {
            // The keys so far are ASCII and, thanks to the exact filter, distinct.
            var index = [String: Int](minimumCapacity: keys.count &+ 1)
            for position in keys.indices { index[keys[position]] = position }
            exactKeyIndex = index
        }
        if let existing = exactKeyIndex?[key] {
            values[existing] = value
            return existing
        }
        exactKeyIndex?[key] = keys.count
        keys.append(key)
        values.append(value)
        return values.count &- 1
    }

    /// Which of the filter's 128 bits stands for `key`, when the key is ASCII: a multiplicative hash
    /// of its UTF-8 bytes. A key of up to 15 bytes — nearly every key — is hashed as two
    /// little-endian words of its bytes, read straight from the string's own words when it is a
    /// small string (`StringBits`); a longer one eight bytes at a time. Which way depends only on
    /// the length, so equal keys get the same bit however they are stored. `nil` for any other key
    /// (or one whose bytes are not contiguous in memory, as a bridged string's may not be).
    @inline(__always)
    private func asciiFilterBit(of key: String) -> UInt64? {
        if readsStringBits, let small = StringBits.smallASCII(key) {
            return Self.shortKeyBit(low: small.low, high: small.high)
        }
        return Self.filterBitReadingBytes(of: key)
    }

    @inline(__always)
    private static func shortKeyBit(low: UInt64, high: UInt64) -> UInt64 {
        ((low ^ (high &* 0xC2B2_AE3D_27D4_EB4F)) &* 0x9E37_79B9_7F4A_7C15) >> 57
    }

    @inline(never)
    private static func filterBitReadingBytes(of key: String) -> UInt64? {
        let bit = key.utf8.withContiguousStorageIfAvailable { bytes -> UInt64? in
            let raw = UnsafeRawBufferPointer(bytes)
            if raw.count <= 15 {
                var low: UInt64 = 0
                var high: UInt64 = 0
                for offset in 0..<raw.count {
                    let byte = UInt64(raw[offset])
                    if byte >= 0x80 { return nil }
                    if offset < 8 { low |= byte &<< (offset &* 8) } else { high |= byte &<< ((offset &- 8) &* 8) }
                }
                return shortKeyBit(low: low, high: high)
            }
            var hash: UInt64 = 0
            var highBits: UInt64 = 0
            var offset = 0
            while offset &+ 8 <= raw.count {
                let word = raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                highBits |= word
                hash = (hash ^ word) &* 0x9E37_79B9_7F4A_7C15
                offset &+= 8
            }
            while offset < raw.count {
                let byte = UInt64(raw[offset])
                highBits |= byte
                hash = (hash ^ byte) &* 0x9E37_79B9_7F4A_7C15
                offset &+= 1
            }
            return highBits & 0x8080_8080_8080_8080 == 0 ? hash >> 57 : nil
        }
        return bit ?? nil
    }

    /// The index of `key`, trying the cursor position first.
    @inline(__always)
    func index(of key: String) -> Int? {
        let guess = cursor
        if guess < keys.count, keys[guess] == key {
            cursor = guess &+ 1
            return guess
        }
        return scan(for: key)
    }

    @inline(never)
    private func scan(for key: String) -> Int? {
        guard let found = keys.firstIndex(of: key) else { return nil }
        cursor = found &+ 1
        return found
    }

    /// Records that the decoder read entry `index` (keyed nodes).
    @inline(__always)
    func markRead(_ index: Int) {
        if index < 64 {
            readMask |= (1 as UInt64) &<< UInt64(index)
        } else {
            markReadBeyondMask(index)
        }
    }

    @inline(never)
    private func markReadBeyondMask(_ index: Int) {
        if overflowReads.count < values.count - 64 {
            overflowReads.append(contentsOf: repeatElement(false, count: values.count - 64 - overflowReads.count))
        }
        overflowReads[index - 64] = true
    }

    /// Whether the decoder read entry `index`.
    func wasRead(_ index: Int) -> Bool {
        if isUnkeyed { return index < readPrefix }
        if index < 64 { return readMask & ((1 as UInt64) &<< UInt64(index)) != 0 }
        let overflowIndex = index - 64
        return overflowIndex < overflowReads.count && overflowReads[overflowIndex]
    }

    /// Nodes whose buffers grew beyond this many entries give their memory back when recycled,
    /// so that mapping one huge array does not pin its memory for the thread's lifetime.
    static let retainedCapacity = 256

    /// Empties the node and invalidates every container that refers to it. Returns whether the node
    /// may be reused: `false` once its generation has reached ``retiredGeneration``.
    func recycle() -> Bool {
        let readsStringBits = readsStringBits
        keys.removeAll(
            retainingAtMost: Self.retainedCapacity, skipping: { readsStringBits && StringBits.isImmortal($0) })
        values.removeAll(retainingAtMost: Self.retainedCapacity, skipping: { $0.holdsNoReference })
        if !overflowReads.isEmpty { overflowReads = [] }
        cursor = 0
        readMask = 0
        readPrefix = 0
        keyFilter = (0, 0)
        exactKeyIndex = nil
        parent = nil
        indexInParent = 0
        isUnkeyed = false
        isRoot = false
        let next = generation &+ 1
        generation = next
        return next < Self.retiredGeneration
    }

    /// The coding path from the top-level value to this node.
    ///
    /// Only for a live node, on the thread mapping it: it walks the parents, which a recycled node
    /// no longer has and another thread may be rewriting. Containers check their generation first.
    var codingPath: [any CodingKey] {
        var reversed: [any CodingKey] = []
        var node = self
        while let parent = node.parent, !parent.isRoot {
            reversed.append(parent.pathKey(at: node.indexInParent))
            node = parent
        }
        return reversed.reversed()
    }

    /// The coding key of entry `index`: its key for keyed nodes, its index for unkeyed ones.
    func pathKey(at index: Int) -> any CodingKey {
        if isUnkeyed || index >= keys.count { return MappingKey.index(index) }
        return MappingKey(stringValue: keys[index])
    }

    /// The coding path to entry `index` of this node.
    func codingPath(appending index: Int) -> [any CodingKey] {
        isRoot ? [] : codingPath + [pathKey(at: index)]
    }
}
