/// The growable storage of a ``ContainerNode``: a manually managed buffer of elements.
///
/// Why not `ContiguousArray`: reading an element of an array stored in a class retains and
/// releases the array's buffer around every access, and emptying it for reuse goes through
/// generic `replaceSubrange` code. Profiles showed that traffic as a large share of a mapping's
/// cost. This buffer is owned by exactly one node (it is `~Copyable`), so reads borrow the element
/// in place and emptying it is one `deinitialize`.
///
/// Invariants: `base[0..<count]` is initialised, `base[count..<capacity]` is not; every subscript
/// index is checked against `count` (a precondition failure here would be a DAOKit bug, never a
/// user error: indices come from the node's own lookups and the containers' bounds checks).
struct NodeBuffer<Element>: ~Copyable {
    private var base: UnsafeMutablePointer<Element>?
    private(set) var count = 0
    private(set) var capacity = 0

    init() {}

    deinit {
        if let base {
            Self.destroy(base, count: count)
            base.deallocate()
        }
    }

    /// Destroys elements one by one: `deinitialize(count:)` would go through the runtime's
    /// generic array destroyer, which costs more than the specialised per-element destroy here.
    @inline(__always)
    private static func destroy(_ base: UnsafeMutablePointer<Element>, count: Int) {
        var index = 0
        while index < count {
            (base + index).deinitialize(count: 1)
            index &+= 1
        }
    }

    var isEmpty: Bool { count == 0 }
    var indices: Range<Int> { 0..<count }

    subscript(index: Int) -> Element {
        @inline(__always)
        unsafeAddress {
            precondition(index >= 0 && index < count, "DAOKit internal error: node index out of range")
            return UnsafePointer(base.unsafelyUnwrapped + index)
        }
        @inline(__always)
        unsafeMutableAddress {
            precondition(index >= 0 && index < count, "DAOKit internal error: node index out of range")
            return base.unsafelyUnwrapped + index
        }
    }

    /// The address of element `index`, for in-place operations such as `isKnownUniquelyReferenced`.
    /// (Not `mutating`: the buffer owns its memory through a pointer, so a borrowed buffer — in a
    /// `deinit` — can still hand out the address.)
    @inline(__always)
    func pointer(at index: Int) -> UnsafeMutablePointer<Element> {
        precondition(index >= 0 && index < count, "DAOKit internal error: node index out of range")
        return base.unsafelyUnwrapped + index
    }

    @inline(__always)
    mutating func append(_ element: consuming Element) {
        if count == capacity { grow(to: Swift.max(8, capacity &* 2)) }
        (base.unsafelyUnwrapped + count).initialize(to: element)
        count &+= 1
    }

    mutating func reserveCapacity(_ minimumCapacity: Int) {
        if minimumCapacity > capacity { grow(to: minimumCapacity) }
    }

    @inline(never)
    private mutating func grow(to newCapacity: Int) {
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        if let base {
            newBase.moveInitialize(from: base, count: count)
            base.deallocate()
        }
        base = newBase
        capacity = newCapacity
    }

    /// Moves the last element out.
    @inline(__always)
    mutating func removeLast() -> Element {
        precondition(count > 0, "DAOKit internal error: removeLast on an empty node buffer")
        count &-= 1
        return (base.unsafelyUnwrapped + count).move()
    }

    /// Destroys every element; keeps the memory unless it has grown past `retainedCapacity`.
    mutating func removeAll(retainingAtMost retainedCapacity: Int) {
        removeAll(retainingAtMost: retainedCapacity, skipping: { _ in false })
    }

    /// ``removeAll(retainingAtMost:)`` that leaves alone the elements `holdsNothing` picks: values
    /// whose destruction does nothing (no reference to release), where the generic destroy would
    /// still make a call per element to find that out.
    ///
    /// Invariant: `holdsNothing` answers `true` only for values of trivial layout (no reference,
    /// no memory to release), so leaving them undestroyed is exactly what destroying them does.
    @inline(__always)
    mutating func removeAll(retainingAtMost retainedCapacity: Int, skipping holdsNothing: (borrowing Element) -> Bool) {
        guard let base else { return }
        var index = 0
        while index < count {
            if !holdsNothing((base + index).pointee) { (base + index).deinitialize(count: 1) }
            index &+= 1
        }
        count = 0
        if capacity > retainedCapacity {
            base.deallocate()
            self.base = nil
            capacity = 0
        }
    }
}

extension NodeBuffer where Element: Equatable {
    func firstIndex(of element: Element) -> Int? {
        var index = 0
        while index < count {
            if self[index] == element { return index }
            index &+= 1
        }
        return nil
    }

    func contains(_ element: Element) -> Bool {
        firstIndex(of: element) != nil
    }
}
