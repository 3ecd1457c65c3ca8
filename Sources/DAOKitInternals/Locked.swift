import Foundation

/// Mutable state that is only ever touched while holding a lock. Package-wide so that every module
/// of the package can use it.
///
/// `Synchronization.Mutex` would be the natural choice, but it needs macOS 15 / iOS 18 and the
/// package supports macOS 14 / iOS 17, so this wraps an `NSLock` instead.
///
/// The conformance to `Sendable` is unchecked because `State` may hold values that are not
/// `Sendable` (entities, a `UserDefaults`). That is sound only if each use site keeps every
/// non-`Sendable` part of the state from escaping ``withLock(_:)`` in a way that lets two threads
/// mutate it; every user of this type says in a comment why its use is sound.
///
/// `withLock` is `@inlinable`, so that each module using it specializes it for each state and closure: called
/// across the module boundary unspecialized, it cost a measurable share of a single file persist
/// (about seven calls), next to nothing while this type lived in `DAOKit`. (The
/// class itself must be `@usableFromInline` too: an `@inlinable` member of a plain `package` class
/// is not inlined.)
@usableFromInline
package final class Locked<State>: @unchecked Sendable {
    @usableFromInline let lock = NSLock()
    /// No dynamic exclusivity check: the only access is `withLock`'s, under `lock`, so two accesses
    /// can never overlap — a nested `withLock` on one thread waits on the lock forever before it
    /// could reach the state, so the check could not catch anything.
    @usableFromInline @exclusivity(unchecked) var state: State

    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the state.
    @inlinable
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
