import DAOKitInternals
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
/// But observation re-runs never occupy more than ``threadCount`` − 1 threads at once: they are
/// background work, and on a 2-core machine two threads re-running a hundred observers' queries
/// would take both cores from the app's own threads, its writers included.
final class BlockingExecutor: @unchecked Sendable {
    static let shared = BlockingExecutor(threadCount: min(8, max(2, ProcessInfo.processInfo.activeProcessorCount)))

    let threadCount: Int
    /// How many threads may run observation jobs at once (``Lane/observation``).
    let observationThreadLimit: Int
    // Sound as `Sendable`: `lanes` and `started` are touched only with `condition` locked.
    private let condition = NSCondition()
    private var lanes = [JobQueue(), JobQueue()]
    private var started = false
    /// How many threads run an observation job now.
    private var runningObservations = 0

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
        observationThreadLimit = max(1, threadCount - 1)
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
                // Mapping deep values recurses; give the threads the stack a main thread has.
                Thread.start(named: "DAOKit work \(index)", stackSize: 8 << 20) { [unowned self] in self.work() }
            }
        }
        condition.signal()
        condition.unlock()
    }

    private func work() {
        while true {
            condition.lock()
            var lane: Lane?
            while true {
                if !lanes[Lane.observation.rawValue].isEmpty && runningObservations < observationThreadLimit {
                    lane = .observation
                } else if !lanes[Lane.call.rawValue].isEmpty {
                    lane = .call
                }
                if lane != nil { break }
                condition.wait()
            }
            let job = lanes[lane!.rawValue].removeFirst()
            if lane == .observation { runningObservations += 1 }
            condition.unlock()
            job.body()
            if lane == .observation {
                condition.lock()
                runningObservations -= 1
                // A queued observation job may have been waiting for this thread's slot.
                if !lanes[Lane.observation.rawValue].isEmpty { condition.signal() }
                condition.unlock()
            }
        }
    }
}
