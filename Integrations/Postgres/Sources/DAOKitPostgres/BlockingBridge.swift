import DAOKit
import Dispatch
import NIOPosix

/// The synchronous API over the asynchronous one: the calling thread waits on a semaphore while a
/// task runs the operation on ``PostgresExecutor``.
///
/// The task never runs on Swift concurrency's cooperative pool, so a caller that blocks a
/// cooperative thread (a synchronous call from `async` code, a test) cannot starve the work it
/// waits for. A caller on an event-loop thread is refused: the operation needs that thread's
/// event loop, or one like it, to make progress, and waiting there could deadlock.
enum BlockingBridge {
    /// Runs `operation` and waits for it.
    /// - Throws: what `operation` throws, or ``StorageError`` when called on an event-loop thread.
    static func wait<T>(entityName: String?, server: String, _ operation: @escaping () async throws -> T) throws -> T {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            throw StorageError(
                .io(
                    "a synchronous PostgresStorageContext method was called on a SwiftNIO event-loop thread, "
                        + "which it would block: call the async method instead"), entityName: entityName,
                location: server)
        }
        // The caller is blocked until the task ends, so nothing it passed in is used by two
        // threads at once: the transfer is safe although the values need not be Sendable.
        let work = UncheckedTransfer(operation)
        let outcome = UncheckedTransfer<Result<T, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: PostgresExecutor.shared) {
            do {
                outcome.value = .success(try await work.value())
            } catch {
                outcome.value = .failure(error)
            }
            done.signal()
        }
        done.wait()
        return try outcome.value!.get()
    }
}

/// A value handed between threads that never use it at the same time.
final class UncheckedTransfer<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}

/// Runs the context's own tasks (the bridge's operations, the pool, the change listener) on
/// Dispatch's threads rather than the cooperative pool, which blocked synchronous callers may
/// fill. Jobs only ever wait by suspending, so they hold a thread briefly.
final class PostgresExecutor: TaskExecutor {
    static let shared = PostgresExecutor()
    private let queue = DispatchQueue(label: "DAOKitPostgres.executor", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
