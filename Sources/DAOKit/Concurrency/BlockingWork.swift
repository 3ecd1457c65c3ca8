import Foundation

/// Runs synchronous, blocking DAOKit work for `async` callers on ``BlockingExecutor``'s threads,
/// and lets that work notice its task's cancellation where it waits for other processes.
///
/// **Cancellation.** A task cancelled before its work starts skips the work and throws
/// `CancellationError`. Once started, the work runs to its end — a half-done write is never
/// abandoned — except where it waits for another process's lock on a file store (`flock` on
/// `.lock`): that wait polls instead of blocking, checking the flag every few milliseconds, and
/// gives up with `CancellationError` when the task is cancelled, having changed nothing.
enum BlockingWork {
    /// The cancellation flag of the work running on the current thread, if it runs through
    /// ``run(_:)``; read by the file store's lock wait.
    static var current: CancellationFlag? {
        guard let pointer = pthread_getspecific(key) else { return nil }
        return Unmanaged<CancellationFlag>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The thread-specific slot holding the current work's flag (unretained: ``run(_:)`` keeps it
    /// alive while it is set).
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "DAOKit: pthread_key_create failed (\(result))")
        return key
    }()

    /// Runs `work` on DAOKit's blocking threads and returns its result.
    /// - Throws: `CancellationError` when the task is cancelled before `work` starts (it then never
    ///   runs) or while `work` waits for another process's file lock; otherwise what `work` throws.
    static func run<T>(_ work: sending @escaping () throws -> T) async throws -> T {
        try Task.checkCancellation()
        let flag = CancellationFlag()
        // `work` is `sending`: nothing else refers to it or what it captures, so moving it into the
        // continuation's closure and on to one executor thread, which runs it once, is race-free.
        let transfer = SendingTransfer(work)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                BlockingExecutor.shared.submit {
                    guard !flag.isCancelled else {
                        continuation.resume(throwing: CancellationError())
                        return
                    }
                    let pointer = Unmanaged.passUnretained(flag).toOpaque()
                    pthread_setspecific(key, pointer)
                    let result: Result<T, any Error>
                    do {
                        result = .success(try transfer.value())
                    } catch {
                        result = .failure(flag.isCancelled && isCancellationOfALockWait(error) ? CancellationError() : error)
                    }
                    pthread_setspecific(key, nil)
                    withExtendedLifetime(flag) {}
                    continuation.resume(with: result)
                }
            }
        } onCancel: {
            flag.cancel()
        }
    }

    /// Whether `error` is a lock wait given up because of cancellation (see ``FileSystemError``'s
    /// `ECANCELED` from the file store's lock), however the context wrapped it.
    private static func isCancellationOfALockWait(_ error: any Error) -> Bool {
        if let error = error as? FileSystemError { return error.code == ECANCELED }
        if let error = error as? StorageError, let underlying = error.underlyingError { return isCancellationOfALockWait(underlying) }
        return false
    }
}

/// A value handed over with `sending` semantics through closures the compiler cannot follow
/// (`withCheckedThrowingContinuation`'s), to be used by exactly one thread. Create it only from a
/// `sending` value.
struct SendingTransfer<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: sending Value) {
        self.value = value
    }
}

/// Whether an `async` call's task was cancelled; set from the task's cancellation handler, read by
/// the work on DAOKit's threads.
final class CancellationFlag: Sendable {
    private let cancelled = Locked(false)

    var isCancelled: Bool { cancelled.withLock { $0 } }

    func cancel() {
        cancelled.withLock { $0 = true }
    }
}
