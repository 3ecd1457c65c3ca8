import Foundation

/// Which clock a section's batches are timed with.
enum TimingClock: String {
    /// CPU time of the measuring thread. Right for work that only computes (mapping, in-memory
    /// storage): time the thread spends preempted by other processes is not counted, so a busy
    /// shared machine inflates neither the numbers nor their spread.
    case threadCPUTime = "thread CPU time"
    /// Elapsed time. Needed when waiting is part of the cost being measured (file I/O, `fsync`),
    /// which CPU time would leave out.
    case wallClock = "wall-clock time"

    /// The current reading in nanoseconds; only differences between readings mean anything.
    func nanosecondsNow() -> UInt64 {
        var time = timespec()
        clock_gettime(self == .threadCPUTime ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
