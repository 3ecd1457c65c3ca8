import MallocInterposerSwift

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#endif

/// Counts heap allocations per operation with malloc-interposer, the library behind
/// package-benchmark's `mallocCountTotal` metric, so both tools count the same way.
///
/// `ratios` links the interposer's shared library, which puts its `malloc` ahead of libc's for the
/// whole process: no `LD_PRELOAD` is needed to count. The price is a few nanoseconds on every
/// allocation and free, which would bias the ratios (see ``InterposerFreeRelaunch``), so timing
/// happens in a process where the interposer is bypassed and counting in one where it is not.
enum AllocationCounter {
    /// Whose allocations a count includes.
    enum Scope {
        /// Only the thread running the variant: for work done on the caller's thread, which is what
        /// a section timed in thread CPU time measures. Whatever else runs in the process meanwhile
        /// (DAOKit's and GRDB's threads, another section's observers, the concurrency runtime) is
        /// left out, so the count is the variant's own.
        case measuringThread
        /// Every thread: for work that hands part of itself to other threads (a database queue),
        /// which a section timed on the wall clock measures.
        case process
    }

    /// Whether allocations made in this process reach the interposer's counters: true when its
    /// `malloc` is the one in use, false when something bypasses it (such as `libc.so.6` preloaded
    /// ahead of it).
    static var isCountingThisProcess: Bool {
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
        allocateAndFreeOnce()
        MallocInterposerSwift.unhook()
        return MallocInterposerSwift.getStatistics().mallocCount > 0
    }

    /// The mean number of allocations one operation of `variant` makes, over enough iterations to
    /// smooth out an occasional allocation (a cache growing, a buffer being reused).
    ///
    /// The variant runs a few times first, unmeasured, so one-time setup (lazily built caches,
    /// per-thread coder state) is not charged to every operation.
    static func allocationsPerOperation(of variant: MeasuredVariant, scope: Scope) throws -> Double {
        let clock = ContinuousClock()
        let warmupIterations = 3
        let start = clock.now
        try variant.run(warmupIterations)
        let perOperation = max((clock.now - start).nanoseconds / Double(warmupIterations), 1)
        // About 50 ms of work, but never fewer than 10 or more than 1000 operations.
        let iterations = min(max(Int(50_000_000 / perOperation), 10), 1_000)

        let count: Int
        switch scope {
        case .process:
            MallocInterposerSwift.initialize()
            MallocInterposerSwift.hook()
            let outcome = Result { try variant.run(iterations) }
            MallocInterposerSwift.unhook()
            try outcome.get()
            count = MallocInterposerSwift.getStatistics().mallocCount
        case .measuringThread:
            count = try ThreadAllocationTally.counting { try variant.run(iterations) }
        }
        return Double(count) / Double(iterations)
    }
}

/// Counts the allocations of one thread, through the interposer's per-allocation hook.
///
/// The hook runs on whichever thread allocates, so it needs no shared mutable state: a thread that
/// is counting keeps a tally in its thread-specific slot, and the hook adds to the tally of the
/// thread it runs on, if that thread has one. Allocations of every other thread find no tally and
/// are not counted. The hook itself allocates nothing (`pthread_getspecific` does not), so it never
/// counts itself.
private enum ThreadAllocationTally {
    /// The slot in which a counting thread keeps a pointer to its tally; `nil` when the process
    /// has no thread keys left.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// The allocations `body` makes on the calling thread, while it runs.
    static func counting(_ body: () throws -> Void) throws -> Int {
        guard let key else { throw AllocationCountingFailed(reason: "no thread-specific key for a per-thread count") }
        let tally = UnsafeMutablePointer<Int>.allocate(capacity: 1)
        tally.initialize(to: 0)
        defer { tally.deallocate() }
        pthread_setspecific(key, tally)
        // The hook reads the key, so it is installed only once the key exists (`key` above).
        MallocInterposerSwift.setAllocationHook(countOnThisThread)
        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
        let outcome = Result { try body() }
        MallocInterposerSwift.unhook()
        MallocInterposerSwift.setAllocationHook(nil)
        pthread_setspecific(key, nil)
        try outcome.get()
        return tally.pointee
    }

    /// The interposer's hook: one more allocation for the calling thread's tally, if it keeps one.
    private static let countOnThisThread: MallocInterposerSwift.AllocationHook = { _ in
        guard let key = ThreadAllocationTally.key, let tally = pthread_getspecific(key) else { return }
        tally.assumingMemoryBound(to: Int.self).pointee += 1
    }
}

/// Allocates and frees one block in a way the optimizer cannot remove (`@_optimize(none)`): the
/// probe for whether allocations are being counted.
@inline(never)
@_optimize(none)
private func allocateAndFreeOnce() {
    let block = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 16)
    block.deallocate()
}
