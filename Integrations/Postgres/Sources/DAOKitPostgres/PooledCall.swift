import Dispatch
import PostgresNIO

/// One call's work on a pooled connection: waits for a connection at most the connect timeout,
/// and stops waiting for the work once its connection has closed.
///
/// - **Connect timeout.** postgres-nio's pool keeps retrying a server it cannot reach (or that
///   refuses the login) for a minute before it fails a request; a call gives up after the
///   context's `connectTimeout` instead (on ``LeaseDeadlines``). A lease that comes later finds the call over and runs
///   nothing, so a write the caller was told had failed never happens.
/// - **Closed connection.** postgres-nio fails the statements of a connection that closes. Yet in
///   about one server restart in ten on the test machine, a statement sent on a pooled connection
///   just as the server closed it was neither answered nor failed, leaving its caller (and a
///   blocked synchronous caller's thread) waiting forever. Once the connection has been closed for
///   ``grace`` with the work still running, the call throws ``ConnectionLost`` and leaves the
///   work's task behind. It holds only the closed connection, which the pool drops; the server
///   rolled back whatever transaction the work had open when the connection ended.
///
/// The work runs in one task on ``PostgresExecutor``, never on Swift concurrency's cooperative
/// threads: a transaction holds locks on the server until it ends, and were it to wait for a
/// cooperative thread while synchronous callers block them all — waiting, perhaps, for those
/// very locks — nothing would move again. One task per call, and the caller resumed by whichever
/// comes first, keeps the thread hops of a short query to the few it needs.
enum PooledCall {
    /// How long work may go on after its connection closed: long enough for postgres-nio to
    /// fail it with the real error, which is the better report.
    static let grace: Double = 2

    /// Where a call is.
    private enum Phase<T: Sendable> {
        /// Waiting for a connection, then for the work; the caller waits on the continuation.
        case leasing(CheckedContinuation<T, any Error>)
        case working(CheckedContinuation<T, any Error>)
        /// The caller has been answered.
        case over
    }

    /// Runs `work` on a connection from `client`.
    /// - Throws: what `work` or the pool throws (cancelling the calling task cancels them);
    ///   ``ConnectTimeout`` when no connection came within `connectTimeout`; ``ConnectionLost``
    ///   when the connection closed and `work` did not end within ``grace``.
    static func run<T: Sendable>(
        on client: PostgresClient, connectTimeout: Duration,
        _ work: @escaping (PostgresConnection) async throws -> T
    ) async throws -> T {
        // `work` runs in one task only, and the caller no longer uses it: the transfer is safe
        // although closures need not be Sendable.
        let transfer = UncheckedTransfer(work)
        let phase = Locked<Phase<T>>(.over)
        let running = Locked<Task<Void, Never>?>(nil)
        let token = Token()
        /// Answers the caller unless it has been answered.
        @Sendable func finish(_ result: Result<T, any Error>, onlyWhileLeasing: Bool = false) {
            let continuation = phase.withLock { phase -> CheckedContinuation<T, any Error>? in
                switch phase {
                case .leasing(let continuation):
                    phase = .over
                    return continuation
                case .working(let continuation) where !onlyWhileLeasing:
                    phase = .over
                    return continuation
                case .working, .over:
                    return nil
                }
            }
            guard let continuation else { return }
            if case .failure = result { running.withLock { $0 }?.cancel() }
            continuation.resume(with: result)
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                phase.withLock { $0 = .leasing(continuation) }
                let deadline = LeaseDeadlines.shared.arm(after: connectTimeout) {
                    finish(.failure(ConnectTimeout(timeout: connectTimeout)), onlyWhileLeasing: true)
                }
                let task = Task(executorPreference: PostgresExecutor.shared) {
                    do {
                        let value = try await client.withConnection { connection in
                            let begun = phase.withLock { phase -> Bool in
                                guard case .leasing(let continuation) = phase else { return false }
                                phase = .working(continuation)
                                return true
                            }
                            // The call timed out or was cancelled while the lease was pending.
                            guard begun else { throw CancellationError() }
                            LeaseDeadlines.shared.disarm(deadline)
                            watch(connection, token) { finish(.failure(ConnectionLost())) }
                            defer { unwatch(connection, token) }
                            return try await transfer.value(connection)
                        }
                        finish(.success(value))
                    } catch {
                        LeaseDeadlines.shared.disarm(deadline)
                        finish(.failure(error))
                    }
                }
                running.withLock { $0 = task }
            }
        } onCancel: {
            // The caller hears how the work ended, not merely that it asked to stop: a write
            // cancelled mid-statement may still commit.
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

    private static func watch(
        _ connection: PostgresConnection, _ token: Token, _ action: @escaping @Sendable () -> Void
    ) {
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
