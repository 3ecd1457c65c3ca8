import Foundation

/// Whether an `async` DAOKit call's task was cancelled; set from the task's cancellation handler,
/// read by the work running for it on DAOKit's threads (`BlockingWork` in DAOKit).
package final class CancellationFlag: Sendable {
    private let cancelled = Locked(false)

    package init() {}

    package var isCancelled: Bool { cancelled.withLock { $0 } }

    package func cancel() {
        cancelled.withLock { $0 = true }
    }
}

/// The cancellation flag of the work running on the current thread, if any: what lets a file
/// store's wait for another process's lock give up when the task that asked is cancelled (see
/// `POSIXFileSystem.lock(_:_:path:)` in the store-format module). Here, in the module both the store
/// format and DAOKit see; DAOKit's `BlockingWork` sets it around each piece of work.
package enum LockWaitCancellation {
    /// The flag of the work running on this thread.
    package static var current: CancellationFlag? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<CancellationFlag>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Sets (or, with `nil`, clears) this thread's flag. Unretained: the caller keeps it alive
    /// while it is set.
    package static func setCurrent(_ flag: CancellationFlag?) {
        pthread_setspecific(key, flag.map { Unmanaged.passUnretained($0).toOpaque() })
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "DAOKit: pthread_key_create failed (\(result))")
        return key
    }()
}
