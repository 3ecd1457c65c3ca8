import Foundation

/// DAOKit's own threads for blocking work: the `async` methods of ``BaseDao`` and the re-runs of
/// its observations run here, never on Swift concurrency's cooperative pool, whose few threads
/// must not wait for locks, disks or other processes.
///
/// A fixed set of threads (``threadCount``: the number of processors, at least 2, at most 8) takes
/// jobs from two first-in, first-out queues: observation re-runs first, then `async` calls. A job
/// queued behind others waits; it never makes a new thread, so a thousand concurrent callers cost a
/// thousand queued closures, not a thousand threads. Observations have their own lane because they
/// are few (one run in flight per observation) and latency is their point: a burst of slow `async`
/// writes (each `fsync`ing a file) would otherwise keep a screen's update waiting behind all of them.
final class BlockingExecutor: @unchecked Sendable {
    static let shared = BlockingExecutor(threadCount: min(8, max(2, ProcessInfo.processInfo.activeProcessorCount)))

    let threadCount: Int
    // Sound as `Sendable`: `lanes` and `started` are touched only with `condition` locked.
    private let condition = NSCondition()
    private var lanes = [JobQueue(), JobQueue()]
    private var started = false

    /// Which queue a job joins; lower lanes are served first.
    enum Lane: Int {
        case observation = 0
        case call = 1
    }

    /// A first-in, first-out queue of jobs.
    private struct JobQueue {
        var jobs: [Job?] = []
        /// The index of the next job to run; the array is compacted when half of it is spent.
        var head = 0

        var isEmpty: Bool { head == jobs.count }

        mutating func append(_ job: Job) {
            jobs.append(job)
        }

        mutating func removeFirst() -> Job {
            let job = jobs[head].take()!
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 1024 && head * 2 > jobs.count {
                jobs.removeFirst(head)
                head = 0
            }
            return job
        }
    }

    /// A queued closure. Sound as `Sendable`: it is created by ``submit(_:)`` from a `sending`
    /// closure, so nothing else refers to what it captures, and is run exactly once, by one thread.
    private struct Job: @unchecked Sendable {
        let body: () -> Void
    }

    init(threadCount: Int) {
        self.threadCount = threadCount
    }

    /// Runs `body` on one of the executor's threads, after the jobs queued before it in its lane
    /// and in the lanes served before it.
    func submit(_ lane: Lane = .call, _ body: sending @escaping () -> Void) {
        let job = Job(body: body)
        condition.lock()
        lanes[lane.rawValue].append(job)
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
            while lanes.allSatisfy(\.isEmpty) { condition.wait() }
            let lane = lanes.firstIndex { !$0.isEmpty }!
            let job = lanes[lane].removeFirst()
            condition.unlock()
            job.body()
        }
    }
}
