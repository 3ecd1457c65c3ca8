import Foundation

/// DAOKit's own threads for blocking work: the `async` methods of ``BaseDao`` and the re-runs of
/// its observations run here, never on Swift concurrency's cooperative pool, whose few threads
/// must not wait for locks, disks or other processes.
///
/// A fixed set of threads (``threadCount``: the number of processors, at least 2, at most 8) takes
/// jobs from one first-in, first-out queue. A job queued behind others waits; it never makes a new
/// thread, so a thousand concurrent callers cost a thousand queued closures, not a thousand threads.
final class BlockingExecutor: @unchecked Sendable {
    static let shared = BlockingExecutor(threadCount: min(8, max(2, ProcessInfo.processInfo.activeProcessorCount)))

    let threadCount: Int
    // Sound as `Sendable`: `jobs`, `head` and `started` are touched only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [Job?] = []
    /// The index of the next job to run; the array is compacted when half of it is spent.
    private var head = 0
    private var started = false

    /// A queued closure. Sound as `Sendable`: it is created by ``submit(_:)`` from a `sending`
    /// closure, so nothing else refers to what it captures, and is run exactly once, by one thread.
    private struct Job: @unchecked Sendable {
        let body: () -> Void
    }

    init(threadCount: Int) {
        self.threadCount = threadCount
    }

    /// Runs `body` on one of the executor's threads, after the jobs queued before it.
    func submit(_ body: sending @escaping () -> Void) {
        let job = Job(body: body)
        condition.lock()
        jobs.append(job)
        if !started {
            started = true
            for index in 0..<threadCount {
                let thread = Thread { [unowned self] in self.work() }
                thread.name = "DAOKit blocking \(index)"
                // Mapping deep values recurses; give the threads the stack a main thread has.
                thread.stackSize = 8 << 20
                thread.start()
            }
        }
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            while head == jobs.count { condition.wait() }
            let job = jobs[head].take()!
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.body()
        }
    }
}
