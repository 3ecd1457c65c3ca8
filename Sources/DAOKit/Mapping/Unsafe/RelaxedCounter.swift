import CDAOKitSupport

/// A 64-bit number that one thread writes and any thread may read without a data race.
///
/// The mapper's staleness checks compare a number a container or coder handle remembers with the
/// number its node or coder holds now (``ContainerNode/generation``, `MappingEncoder.level`). A
/// container user code kept can be touched from another thread while the thread that owns the node
/// reuses it for later mappings, so those reads race with the owner's writes; done as relaxed atomic
/// accesses they are well defined (and invisible to ThreadSanitizer), and they cost a plain load or
/// store on x86-64 and arm64.
///
/// Invariants: the word lives at a fixed address from ``init(_:)`` until ``deallocate()``, which the
/// one object that owns the counter calls from its `deinit` and nothing else calls — the counter is
/// a plain pointer, copyable, so that reading it costs no retain and no borrow bookkeeping (a
/// `~Copyable` wrapper stored in a class was measured at an extra retain/release per access).
/// Relaxed ordering is enough: a reader only compares the value for equality with one it already
/// holds and refuses on a mismatch; on a match it is on the owning thread (``ContainerNode`` checks
/// that too), so nothing it reads next is another thread's.
struct RelaxedCounter {
    private let word: UnsafeMutablePointer<UInt64>

    init(_ value: UInt64) {
        word = .allocate(capacity: 1)
        word.initialize(to: value)
    }

    /// Frees the word; only the owner's `deinit` calls this.
    func deallocate() {
        word.deallocate()
    }

    var value: UInt64 {
        @inline(__always) get { daokit_load_relaxed(word) }
        @inline(__always) nonmutating set { daokit_store_relaxed(word, newValue) }
    }
}
