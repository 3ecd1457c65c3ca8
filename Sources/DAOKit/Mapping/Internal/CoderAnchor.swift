/// The node a `superEncoder()`/`superDecoder()` coder works on, and the generation it had then.
///
/// A session's own coders are reused, so their handles are tied to a nesting level that ends with
/// the call; a super coder is an object of its own that user code may keep, so it is tied to its
/// node instead: once the node is recycled, the coder refuses every request.
struct CoderAnchor {
    let node: ContainerNode
    let generation: UInt64

    init(_ node: ContainerNode) {
        self.node = node
        self.generation = node.generation
    }

    var isCurrent: Bool { node.isLive(in: generation) }
}
