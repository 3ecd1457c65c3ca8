/// The state one `map` call shares between its encoders and decoders: the container nodes it
/// has handed out, and what it has learnt about errors and nesting depth.
///
/// An arena belongs to one ``CodingSession`` and so to one thread; it is reused from call to call,
/// which is where most of the mapper's speed comes from: a flat value needs no new node at all.
final class CodingArena {
    /// Recycled nodes ready for reuse.
    @exclusivity(unchecked) private var free = NodeBuffer<ContainerNode>()
    /// Nodes handed out during the current call; all are recycled when it ends.
    @exclusivity(unchecked) private var live = NodeBuffer<ContainerNode>()

    /// How deeply nested the value being encoded or decoded currently is.
    @exclusivity(unchecked) var depth = 0
    /// The deepest nesting this thread may reach before the call moves to a thread with a larger
    /// stack (see ``EntityMapper``); `Int.max` on such a thread.
    @exclusivity(unchecked) var depthLimit = NestingLimits.onCallerThread
    /// Set when `depthLimit` was exceeded. A flag as well as an error, because user code may catch
    /// and ignore the error (`try?`), and the call must be redone all the same.
    @exclusivity(unchecked) var exceededDepthLimit = false
    /// A misuse the encoder could not throw at once (non-throwing API), reported when the call ends.
    @exclusivity(unchecked) var deferredError: (any Error)?
    /// Where an error thrown by user code (not a `DecodingError`/`EncodingError`, which carry their
    /// own path) first crossed a nesting boundary: the deepest point we know it came from.
    /// Cleared whenever a nested value completes, since that means no such error is in flight.
    @exclusivity(unchecked) var userErrorPath: [any CodingKey]?
    /// Hands out level numbers that identify one nesting level of one call (see
    /// `MappingEncoder.level`).
    @exclusivity(unchecked) private var lastLevel: UInt32 = 0

    /// How many recycled nodes to keep between calls: enough for every realistic record, few
    /// enough that mapping a 100,000-element array once does not pin its memory forever.
    private static let retainedNodeLimit = 512

    /// A node for a container, recorded so that it is recycled when the call ends.
    @inline(__always)
    func makeNode(unkeyed: Bool, parent: ContainerNode?, index: Int) -> ContainerNode {
        let node = free.isEmpty ? ContainerNode() : free.removeLast()
        node.isUnkeyed = unkeyed
        node.parent = parent
        node.indexInParent = index
        live.append(node)
        return node
    }

    /// The one-slot node that holds a call's top-level value.
    func makeRoot() -> ContainerNode {
        let root = makeNode(unkeyed: true, parent: nil, index: 0)
        root.isRoot = true
        root.values.append(.null)
        root.readPrefix = 1
        return root
    }

    /// A fresh level number for a new nesting level.
    @inline(__always)
    func nextLevel() -> UInt32 {
        lastLevel &+= 1
        return lastLevel
    }

    /// Ends a call: recycles every node it used (invalidating containers user code may have
    /// kept) and forgets its error and depth state.
    func reset() {
        while !live.isEmpty {
            let node = live.removeLast()
            node.recycle()
            if free.count < Self.retainedNodeLimit {
                free.append(node)
            }
        }
        live.removeAll(retainingAtMost: Self.retainedNodeLimit)
        depth = 0
        exceededDepthLimit = false
        deferredError = nil
        userErrorPath = nil
    }
}

/// How deep a value may nest.
enum NestingLimits {
    /// On the caller's thread, whose stack may be as small as 512 KiB (secondary threads and Swift
    /// concurrency on Apple platforms), a call nested deeper than this is redone on a thread of
    /// its own with a large stack. Real records rarely nest more than a dozen levels.
    static let onCallerThread = 192
    /// The stack of that thread: virtual memory, committed only as it is used.
    static let deepStackSize = 512 << 20
    /// Beyond this depth a value is reported as corrupt rather than risking the stack even there.
    static let absolute = 100_000
}

/// Thrown when nesting exceeds the arena's `depthLimit`.
struct NestingTooDeep: Error {}
