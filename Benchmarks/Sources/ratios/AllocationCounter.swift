import MallocInterposerSwift

/// Counts heap allocations per operation with malloc-interposer, the library behind
/// package-benchmark's `mallocCountTotal` metric, so both tools count the same way.
///
/// `ratios` links the interposer's shared library, which puts its `malloc` ahead of libc's for the
/// whole process: no `LD_PRELOAD` is needed to count. The price is a few nanoseconds on every
/// allocation and free, which would bias the ratios (see ``InterposerFreeRelaunch``), so timing
/// happens in a process where the interposer is bypassed and counting in one where it is not.
enum AllocationCounter {
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
    static func allocationsPerOperation(of variant: MeasuredVariant) throws -> Double {
        let clock = ContinuousClock()
        let warmupIterations = 3
        let start = clock.now
        try variant.run(warmupIterations)
        let perOperation = max((clock.now - start).nanoseconds / Double(warmupIterations), 1)
        // About 50 ms of work, but never fewer than 10 or more than 1000 operations.
        let iterations = min(max(Int(50_000_000 / perOperation), 10), 1_000)

        MallocInterposerSwift.initialize()
        MallocInterposerSwift.hook()
        let outcome = Result { try variant.run(iterations) }
        MallocInterposerSwift.unhook()
        try outcome.get()
        return Double(MallocInterposerSwift.getStatistics().mallocCount) / Double(iterations)
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
