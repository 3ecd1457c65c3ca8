import DAOKitInternals
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
                    LockWaitCancellation.setCurrent(flag)
                    let result: Result<T, any Error>
                    do {
                        result = .success(try transfer.value())
                    } catch {
                        result = .failure(
                            flag.isCancelled && isCancellationOfALockWait(error) ? CancellationError() : error)
                    }
                    LockWaitCancellation.setCurrent(nil)
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
        if let error = error as? StorageError, let underlying = error.underlyingError {
            return isCancellationOfALockWait(underlying)
        }
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
