import Foundation

/// Mutable state that is only ever touched while holding a lock. Package-wide so that
/// `DAOKitTesting` can use it too.
///
/// `Synchronization.Mutex` would be the natural choice, but it needs macOS 15 / iOS 18 and the
/// package supports macOS 14 / iOS 17, so this wraps an `NSLock` instead.
///
/// The conformance to `Sendable` is unchecked because `State` may hold values that are not
/// `Sendable` (entities, a `UserDefaults`). That is sound only if each use site keeps every
/// non-`Sendable` part of the state from escaping ``withLock(_:)`` in a way that lets two threads
/// mutate it; every user of this type says in a comment why its use is sound.
package final class Locked<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    package init(_ state: State) {
        self.state = state
    }

    /// Runs `body` with exclusive access to the state.
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
