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
/// Invariant: the word lives at a fixed address for the counter's lifetime (it is allocated here and
/// owned by this non-copyable value), which is what the C atomics need. Relaxed ordering is enough:
/// a reader only ever compares the value for equality with one it already holds, and refuses on a
/// mismatch without touching anything else; on a match it is on the owning thread (anything else is
/// a data race in user code, which a non-`Sendable` container forbids).
struct RelaxedCounter: ~Copyable {
    private let word: UnsafeMutablePointer<UInt64>

    init(_ value: UInt64) {
        word = .allocate(capacity: 1)
        word.initialize(to: value)
    }

    deinit {
        word.deallocate()
    }

    var value: UInt64 {
        @inline(__always) get { daokit_load_relaxed(word) }
        @inline(__always) nonmutating set { daokit_store_relaxed(word, newValue) }
    }
}
