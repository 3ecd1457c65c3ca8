import DAOKit
import DAOKitInternals
import Foundation

/// Consumes an `observeCount` stream in a task of its own, so that the (synchronous) demo can show
/// an observer receiving a change.
final class DemoCountObserver: Sendable {
    private let counts = Locked<[Int]>([])
    private let arrived = DispatchSemaphore(value: 0)
    private let consumer: Task<Void, Never>
    private let taken = Locked(0)

    init(_ stream: AsyncThrowingStream<Int, any Error>) {
        let counts = counts
        let arrived = arrived
        let consume: @Sendable () async -> Void = {
            do {
                for try await count in stream {
                    counts.withLock { $0.append(count) }
                    arrived.signal()
                }
            } catch {}
        }
        // The demo waits for the consumer with a semaphore, which may block a cooperative thread
        // when the demo runs inside `async` code (the tests); the consumer then runs on a thread
        // of its own, where the platform allows an executor preference.
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
            consumer = Task(executorPreference: DemoThreadExecutor.shared) { await consume() }
        } else {
            consumer = Task { await consume() }
        }
    }

    deinit {
        consumer.cancel()
    }

    /// The next count the observer received, waiting up to 5 s for it; `nil` when none came.
    func next() -> Int? {
        guard arrived.wait(timeout: .now() + 5) == .success else { return nil }
        let index = taken.withLock { taken -> Int in
            defer { taken += 1 }
            return taken
        }
        return counts.withLock { $0[index] }
    }
}

/// One thread that runs the demo observer's task, off the cooperative pool.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, *)
final class DemoThreadExecutor: TaskExecutor, @unchecked Sendable {
    static let shared = DemoThreadExecutor()

    // Sound as `Sendable`: `jobs` is touched only with `condition` locked.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []

    private init() {
        Thread.start(named: "dao observer") { [unowned self] in self.run() }
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
