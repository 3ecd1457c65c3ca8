import DAOKitInternals
import Foundation

/// How a body run on a thread of its own ended.
package enum ThreadOutcome<T: Equatable>: Equatable {
    case finished(T)
    case threw(String)
    /// It did not end in time: it is blocked, most likely waiting for a lock its own thread holds.
    case hung
}

/// Runs `body` on a new thread and waits at most `limit` for it, so that a test whose code
/// deadlocks fails instead of hanging the run (the blocked thread is abandoned).
package func runOnAThreadOfItsOwn<T: Equatable & Sendable>(
    within limit: Duration, _ body: @escaping @Sendable () throws -> T
) -> ThreadOutcome<T> {
    let result = Locked<ThreadOutcome<T>?>(nil)
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        let outcome: ThreadOutcome<T>
        do { outcome = .finished(try body()) } catch { outcome = .threw(String(describing: error)) }
        result.withLock { $0 = outcome }
        done.signal()
    }
    thread.stackSize = 1 << 22
    thread.start()
    let seconds = Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18
    guard done.wait(timeout: .now() + seconds) == .success else { return .hung }
    return result.withLock { $0 } ?? .hung
}
