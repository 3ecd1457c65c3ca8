/// The workloads that share one store, with what it takes to set the store up, check it and remove it.
///
/// Stores are set up lazily, on the first call of ``prepare`` (or of any workload), because
/// filling one takes a while (10,000 records, for files 10,000 `fsync`ed files) and a tool that only
/// lists benchmarks, or runs other ones, should not pay for it.
public struct StorageWorkloadSet {
    public let workloads: [StorageWorkload]
    /// Sets the store up, once; later calls return at once, or throw the same error again.
    public let prepare: () throws -> Void
    /// Throws a ``StorageMismatch`` unless every workload computes what the hand-written code
    /// computes (and leaves the store as it found it). Run it before timing, so that a fast but
    /// wrong variant fails the run instead of producing a ratio. The checks run once (they take a
    /// while: every workload runs once); later calls return at once, or throw the same error again.
    public let verify: () throws -> Void
    /// Releases the store and removes whatever it keeps outside the process (a temporary
    /// directory); the next ``prepare`` sets up a new one. Releasing the set does the same; this is
    /// for tools that keep many sets, or exit without releasing them.
    public let tearDown: () -> Void
}
