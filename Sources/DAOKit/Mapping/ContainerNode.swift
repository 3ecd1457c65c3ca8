/// A keyed or unkeyed container in the mapped representation.
///
/// Nodes are reference types so that a container handed to user code keeps writing into the tree
/// it belongs to, the way `JSONEncoder`'s containers do, and so that they can be pooled: a
/// ``CodingSession`` hands out nodes during one `map` call and takes all of them back when the call
/// ends (see ``NodePool``). Recycling bumps ``generation``; containers remember the generation they
/// were created with and refuse to touch a node that has since been recycled, so a container a
/// user type kept after `encode(to:)` returned can never corrupt a later mapping.
///
/// Exclusivity checking is disabled on the hot fields: a node is only ever touched by the one
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
    /// A 128-bit filter of the keys written so far (see ``append(key:value:)``).
    @exclusivity(unchecked) private var keyFilter: (UInt64, UInt64) = (0, 0)
    /// Changes every time the node is recycled; see the type's documentation.
    @exclusivity(unchecked) var generation: UInt64 = 0
    /// The node this one is stored in, for reconstructing coding paths; `nil` for the root.
    @exclusivity(unchecked) var parent: ContainerNode?
    /// This node's index in `parent.values`.
    @exclusivity(unchecked) var indexInParent: Int = 0
    /// True for unkeyed nodes.
    @exclusivity(unchecked) var isUnkeyed = false
    /// True for the one-slot node that holds a top-level value; it adds nothing to paths.
    @exclusivity(unchecked) var isRoot = false

    /// Appends a keyed entry and returns its index. A key written again replaces the earlier
    /// value in place, as in a JSON object, so every key is stored once and reads find the last
    /// value written.
    ///
    /// Looking for the key in every append would make writing a struct quadratic, so a small
    /// filter of the keys' bits answers "certainly new" for almost every key, and only a possible
    /// repeat is looked for. The filter hashes the `String`'s representation: equal small strings
    /// (up to 15 UTF-8 bytes) and keys from the same string literal — every synthesized
    /// `CodingKeys` case — share it, so their repeats always reach the exact comparison. Two equal
    /// large strings built at run time may not, which can only happen with dictionary keys, and a
    /// dictionary's keys are unique.
    @inline(__always)
    @discardableResult
    func append(key: String, value: MappedValue) -> Int {
        let bit = Self.filterBit(of: key)
        let mayRepeat = bit < 64 ? keyFilter.0 & (1 &<< bit) != 0 : keyFilter.1 & (1 &<< (bit &- 64)) != 0
        if mayRepeat, let existing = keys.firstIndex(of: key) {
            values[existing] = value
            return existing
        }
        if bit < 64 { keyFilter.0 |= 1 &<< bit } else { keyFilter.1 |= 1 &<< (bit &- 64) }
        keys.append(key)
        values.append(value)
        return values.count &- 1
    }

    /// Which of the filter's 128 bits stands for `key`: a multiplicative hash of the bytes of its
    /// representation (not of its characters, which would cost far more).
    @inline(__always)
    private static func filterBit(of key: String) -> UInt64 {
        withUnsafeBytes(of: key) { raw in
            var hash: UInt64 = 0
            var offset = 0
            while offset + 8 <= raw.count {
                hash = (hash ^ raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
                offset &+= 8
            }
            while offset < raw.count {
                hash = (hash ^ UInt64(raw[offset])) &* 0x9E37_79B9_7F4A_7C15
                offset &+= 1
            }
            return hash >> 57
        }
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

    /// Empties the node for reuse and invalidates every container that refers to it.
    func recycle() {
        keys.removeAll(retainingAtMost: Self.retainedCapacity)
        values.removeAll(retainingAtMost: Self.retainedCapacity)
        if !overflowReads.isEmpty { overflowReads = [] }
        cursor = 0
        readMask = 0
        readPrefix = 0
        keyFilter = (0, 0)
        parent = nil
        indexInParent = 0
        isUnkeyed = false
        isRoot = false
        generation &+= 1
    }

    /// The coding path from the top-level value to this node.
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
        if index < 0 { return MappingKey.super }  // a `superDecoder()` key the source lacks
        if isUnkeyed || index >= keys.count { return MappingKey.index(index) }
        return MappingKey(stringValue: keys[index])
    }

    /// The coding path to entry `index` of this node.
    func codingPath(appending index: Int) -> [any CodingKey] {
        isRoot ? [] : codingPath + [pathKey(at: index)]
    }
}
