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
    /// Keeps deep values from overflowing the calling thread's stack (see ``StackGuard``).
    @exclusivity(unchecked) var stackGuard = StackGuard()
    /// A misuse the encoder could not throw at once (non-throwing API), reported when the call ends.
    @exclusivity(unchecked) var deferredError: (any Error)?
    /// The last error thrown by user code (not a `DecodingError`/`EncodingError`, which carry their
    /// own path) that crossed a nesting boundary, and where it first did (see ``noteUserError``).
    @exclusivity(unchecked) private var userError: UserErrorRecord?
    /// The encoders and decoders `superEncoder()`/`superDecoder()` made during the current call.
    ///
    /// The containers they hand out refer to them without retaining them (see
    /// `MappingKeyedEncodingContainer.encoder`), while user code may let go of the super coder as soon
    /// as it has its container; so the arena keeps every one alive until the call ends — exactly as
    /// long as the generation check lets a container use its coder.
    @exclusivity(unchecked) private var superCoders: [AnyObject] = []
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

    /// Keeps a super coder alive until the call ends (see ``superCoders``).
    func retain(superCoder: AnyObject) {
        superCoders.append(superCoder)
    }

    /// Records where an error thrown by user code crossed a nesting boundary.
    ///
    /// The first boundary an error crosses is the deepest, so a later boundary keeps the recorded
    /// path for the same error, and a different error is recorded afresh, so that a swallowed error
    /// never lends its path to another (see ``UserErrorRecord`` for what "the same" means).
    func noteUserError(_ error: any Error, at path: @autoclosure () -> [any CodingKey]) {
        if error is DecodingError || error is EncodingError { return }
        if let userError, userError.matches(error, lastLevel: lastLevel) { return }
        userError = UserErrorRecord(error: error, path: path(), lastLevel: lastLevel)
    }

    /// The path recorded for `error`, when it is the error last seen crossing a boundary.
    func userErrorPath(for error: any Error) -> [any CodingKey]? {
        guard let userError, userError.matches(error, lastLevel: lastLevel) else { return nil }
        return userError.path
    }

    /// Ends a call: recycles every node it used (invalidating containers user code may have
    /// kept) and forgets its error and depth state.
    func reset() {
        while !live.isEmpty {
            let node = live.removeLast()
            if node.recycle() && free.count < Self.retainedNodeLimit {
                free.append(node)
            }
        }
        live.removeAll(retainingAtMost: Self.retainedNodeLimit)
        // After the nodes: a container may use its super coder exactly while its node is live.
        if !superCoders.isEmpty { superCoders.removeAll() }
        depth = 0
        deferredError = nil
        userError = nil
    }
}

/// An error thrown by user code, the path where it first crossed a nesting boundary, and how many
/// nesting levels the call had started by then.
///
/// Whether a later error is the same one, rethrown on its way out, is decided without looking at
/// the error's memory (an `any Error`'s box is not something Swift lets a program compare): it is
/// the same when no nesting level has started since it was recorded — an error that user code
/// swallowed and then went on decoding is never the one that comes out — and it has the same type
/// and the same description. Two equal errors thrown one right after the other, with no mapping
/// work in between, are taken for one; their paths can then differ only in how deep they point
/// into a value the user code gave up on.
struct UserErrorRecord {
    let error: any Error
    let path: [any CodingKey]
    let lastLevel: UInt64

    func matches(_ other: any Error, lastLevel current: UInt64) -> Bool {
        current == lastLevel
            && ObjectIdentifier(type(of: error)) == ObjectIdentifier(type(of: other))
            && String(reflecting: error) == String(reflecting: other)
    }
}
