import Dispatch
import PostgresNIO

/// Runs work on a pooled connection, and stops waiting for it once the connection has closed.
///
/// postgres-nio fails the statements of a connection that closes. Yet in about one server
/// restart in ten on the test machine, a statement sent on a pooled connection just as the server
/// closed it was neither answered nor failed, leaving its caller, and a blocked synchronous
/// caller's thread, waiting forever. So the work runs in a task of its own while the call watches
/// the connection: once it has been closed for ``grace`` with the work still running, the call
/// throws ``ConnectionLost`` and leaves that task behind. It holds only the closed connection,
/// which the pool drops; a statement of it that ever does end is answered by a server that rolled
/// its transaction back when the connection ended.
enum ConnectionWatch {
    /// How long work may go on after its connection closed: long enough for postgres-nio to
    /// fail it with the real error, which is the better report.
    static let grace: Double = 2

    /// Runs `work` on `connection`.
    /// - Throws: what `work` throws, or ``ConnectionLost`` when the connection closed and `work`
    ///   did not end within ``grace``.
    static func run<T: Sendable>(on connection: PostgresConnection,
                                 _ work: @escaping (PostgresConnection) async throws -> T) async throws -> T {
        // `work` runs in one task only, and the caller no longer uses it: the transfer is safe
        // although closures need not be Sendable.
        let transfer = UncheckedTransfer(work)
        let pending = Locked<CheckedContinuation<T, any Error>?>(nil)
        let running = Locked<Task<Void, Never>?>(nil)
        let token = Token()
        defer { unwatch(connection, token) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                pending.withLock { $0 = continuation }
                let task = Task(executorPreference: PostgresExecutor.shared) {
                    let result: Result<T, any Error>
                    do { result = .success(try await transfer.value(connection)) } catch { result = .failure(error) }
                    pending.withLock { $0.take() }?.resume(with: result)
                }
                running.withLock { $0 = task }
                watch(connection, token) {
                    guard let waiting = pending.withLock({ $0.take() }) else { return }
                    task.cancel()
                    waiting.resume(throwing: ConnectionLost())
                }
            }
        } onCancel: {
            running.withLock { $0 }?.cancel()
        }
    }

    /// One call's entry among a connection's watchers.
    private final class Token: Sendable {}

    /// A watched connection and what to do once it has been closed for ``grace``. The entry
    /// holds the connection, so that its address (the key) cannot be reused by another
    /// connection before the entry is gone.
    private struct Watched {
        let connection: PostgresConnection
        var actions: [ObjectIdentifier: @Sendable () -> Void] = [:]
    }

    /// One `closeFuture` callback per connection, not per call: a pooled connection serves calls
    /// for hours, and callbacks on its future would pile up until it closed.
    private static let watched = Locked<[ObjectIdentifier: Watched]>([:])

    private static func watch(_ connection: PostgresConnection, _ token: Token, _ action: @escaping @Sendable () -> Void) {
        let id = ObjectIdentifier(connection)
        let first = watched.withLock { watched -> Bool in
            let first = watched[id] == nil
            watched[id, default: Watched(connection: connection)].actions[ObjectIdentifier(token)] = action
            return first
        }
        guard first else { return }
        connection.closeFuture.whenComplete { _ in
            DispatchQueue.global().asyncAfter(deadline: .now() + grace) {
                let actions = watched.withLock { $0.removeValue(forKey: id)?.actions.values } ?? [:].values
                for action in actions { action() }
            }
        }
    }

    private static func unwatch(_ connection: PostgresConnection, _ token: Token) {
        watched.withLock { _ = $0[ObjectIdentifier(connection)]?.actions.removeValue(forKey: ObjectIdentifier(token)) }
    }
}

/// A connection closed while work on it was still waiting for the server.
struct ConnectionLost: Error, CustomStringConvertible {
    var description: String { "the connection to the server closed while a statement waited for its answer" }
}
