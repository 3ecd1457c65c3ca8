import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The lock of a storage context's state: like ``Locked``, but a thread that asks for it while it
/// holds it already gets a ``StorageError`` of kind ``StorageError/Kind/reentrantCall`` instead of
/// waiting for itself forever.
///
/// A context calls code it does not own while holding its lock only where it cannot be avoided —
/// a ``KeyValueStore``'s methods, and whatever they call: an observer of `UserDefaults`' change
/// notification runs inside `set`. Such code calling the context again would otherwise hang the
/// thread with no message. Everything else a context can work out before taking the lock (ids,
/// storage keys, entity names, encoding) it does, so that re-entering from an `id` getter or an
/// `encode(to:)` works.
///
/// It is a POSIX mutex of type `PTHREAD_MUTEX_ERRORCHECK`, which reports relocking by its owner
/// (`EDEADLK`) instead of deadlocking; no other failure is possible for a mutex that initialised,
/// so any other one stops the process with the reason.
package final class ContextLock<State>: @unchecked Sendable {
    // Sound for the same reason as `Locked`: `state` is only touched inside `withLock`, and each
    // context says why its state may be shared. The mutex is allocated once and never moves.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var state: State

    package init(_ state: State) {
        self.state = state
        mutex = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        Self.check(pthread_mutexattr_init(&attributes), "pthread_mutexattr_init")
        defer { pthread_mutexattr_destroy(&attributes) }
        Self.check(pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK)), "pthread_mutexattr_settype")
        Self.check(pthread_mutex_init(mutex, &attributes), "pthread_mutex_init")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    /// - Throws: ``StorageError`` of kind ``StorageError/Kind/reentrantCall`` (naming
    ///   `entityName`, when given) without running `body` when this thread holds the lock already;
    ///   otherwise what `body` throws.
    package func withLock<Result>(entityName: String? = nil, _ body: (inout State) throws -> Result) throws -> Result {
        let result = pthread_mutex_lock(mutex)
        if result == EDEADLK { throw StorageError(.reentrantCall, entityName: entityName) }
        Self.check(result, "pthread_mutex_lock")
        defer { Self.check(pthread_mutex_unlock(mutex), "pthread_mutex_unlock") }
        return try body(&state)
    }

    private static func check(_ result: Int32, _ call: String) {
        if result != 0 { fatalError("DAOKit: \(call) failed: \(String(cString: strerror(result)))") }
    }
}
