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
    /// Whether the call has moved to a thread with a large stack (see ``DeepStack``).
    @exclusivity(unchecked) var isOnDeepStack = false
    /// A misuse the encoder could not throw at once (non-throwing API), reported when the call ends.
    @exclusivity(unchecked) var deferredError: (any Error)?
    /// The last error thrown by user code (not a `DecodingError`/`EncodingError`, which carry their
    /// own path) that crossed a nesting boundary, and where it first did: the deepest point it is
    /// known to come from. Kept alive so that its identity can be compared (see ``noteUserError``).
    @exclusivity(unchecked) private(set) var userError: (error: any Error, path: [any CodingKey])?
    /// Hands out level numbers that identify one nesting level of one call (see
    /// `MappingEncoder.level`). 64 bits: a number is never handed out twice.
    @exclusivity(unchecked) private var lastLevel: UInt64 = 0

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
    func nextLevel() -> UInt64 {
        lastLevel &+= 1
        return lastLevel
    }

    /// Records where an error thrown by user code crossed a nesting boundary.
    ///
    /// The first boundary an error crosses is the deepest, so a later boundary keeps the recorded
    /// path for the same error. "The same" is decided by identity: a rethrown error keeps its box,
    /// while an error thrown anew — say after user code swallowed a nested one with `try?` — has a
    /// box of its own and is recorded afresh, so a swallowed error never lends its path to another.
    func noteUserError(_ error: any Error, at path: @autoclosure () -> [any CodingKey]) {
        if error is DecodingError || error is EncodingError { return }
        if let userError, ErrorIdentity.same(userError.error, error) { return }
        userError = (error, path())
    }

    /// The path recorded for `error`, when it is the error last seen crossing a boundary.
    func userErrorPath(for error: any Error) -> [any CodingKey]? {
        guard let userError, ErrorIdentity.same(userError.error, error) else { return nil }
        return userError.path
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
        isOnDeepStack = false
        deferredError = nil
        userError = nil
    }
}

/// How deep a value may nest.
enum NestingLimits {
    /// On the caller's thread, whose stack may be as small as 512 KiB (secondary threads and Swift
    /// concurrency on Apple platforms), nesting deeper than this continues on a thread with a large
    /// stack (see ``DeepStack``). Real records rarely nest more than a dozen levels.
    static let onCallerThread = 192
    /// The stack of that thread: virtual memory, committed only as it is used.
    static let deepStackSize = 512 << 20
    /// Beyond this depth a value is reported as corrupt rather than risking the stack even there.
    static let absolute = 100_000
}

/// Tells whether two errors are the same error: one rethrown unchanged, rather than a new one.
enum ErrorIdentity {
    static func same(_ first: any Error, _ second: any Error) -> Bool {
        // `any Error` is one reference to a heap box, and a rethrown error keeps its box. Errors
        // the runtime stores without a box (seen for payload-free enum cases on Linux) can only
        // be compared by type and value, so two equal such errors count as one.
        if MemoryLayout<any Error>.size == MemoryLayout<UInt>.size {
            let firstBox = withUnsafeBytes(of: first) { $0.load(as: UInt.self) }
            let secondBox = withUnsafeBytes(of: second) { $0.load(as: UInt.self) }
            if firstBox != 0 && secondBox != 0 { return firstBox == secondBox }
        }
        return ObjectIdentifier(type(of: first)) == ObjectIdentifier(type(of: second))
            && String(reflecting: first) == String(reflecting: second)
    }
}
