import DAOKit
import Dispatch
import Foundation
import PostgresNIO

/// Other instances' commits, for the context's ``StorageChangeNotifier``: `LISTEN`s on one pooled
/// connection while anyone observes, and hands what arrives to the change thread.
///
/// Every write of a ``PostgresStorageContext`` sends `pg_notify` inside its transaction, which
/// PostgreSQL delivers only if it commits. The payload names the schema, the sending context
/// (whose own listener skips it: it posted the change itself) and the entity and keys.
///
/// ``begin()`` waits until `LISTEN` is active (at most a few seconds), so a commit after an
/// observation started is not missed. Whenever the listening connection is lost, notifications
/// sent meanwhile are lost too: the listener connects again, with a pause that doubles from
/// ``firstPause`` to ``longestPause`` while it keeps failing, for as long as anyone observes, and
/// the next ``changes()`` once it listens again reports ``StorageChange/everything``, so observers
/// re-run rather than miss a write.
///
/// **Observations across a restart.** An observation whose query fails because the server is
/// away (``observationOutlives(_:)``, see ``PostgresFailure/passes(_:)``) does not end: the
/// listener reports ``StorageChange/everything`` once it listens again — or, when its own
/// connection never noticed the outage, after a pause that grows with each such failure — and
/// the observation runs again. An error that cannot pass (a dropped table, a record that does not
/// decode) ends it, and so does ``close()``: the observations waiting are woken, and their
/// queries fail with "the context was closed".
final class PostgresChangeListener: ExternalChangeMonitor, Sendable {
    /// What a commit announces: the `NOTIFY` payload, as JSON.
    struct Announcement: Codable {
        var schema: String
        var origin: String
        var entity: String?
        var keys: [String]?
        /// A transaction's announcement: every type it changed (`entity` is `nil` then, which an
        /// earlier version, not knowing this field, reads as "anything may have changed").
        var entities: [String]?

        func encoded() -> String? {
            (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) }
        }
    }

    /// This context's id in the payloads it sends.
    let origin = UUID().uuidString
    private let client: PostgresClient
    private let schema: String
    private let state = Locked(State())

    private struct State {
        var task: Task<Void, Never>?
        var pending: [StorageChange] = []
        var listening = false
        /// Whether notifications may have been lost since the last ``changes()``.
        var missed = false
        var waiters: [DispatchSemaphore] = []
        /// Observations' queries that failed in a way that passes, since the listener last
        /// started listening: the pause before the next "anything may have changed" grows with it.
        var passingFailures = 0
        /// When the observations that failed may run again.
        var retryAt = ContinuousClock.now
        /// Whether the context was closed: no failure passes then.
        var closed = false
    }

    /// The pause after the first failed attempt to listen, or an observation's first failed run.
    static let firstPause = Duration.milliseconds(100)
    /// The longest pause between attempts, however long the server stays away.
    static let longestPause = Duration.seconds(5)

    /// The pause after `failures` consecutive failures: doubling from ``firstPause``, at most
    /// ``longestPause``.
    static func pause(after failures: Int) -> Duration {
        var pause = firstPause
        for _ in 1..<min(max(failures, 1), 64) where pause < longestPause { pause *= 2 }
        return min(pause, longestPause)
    }

    init(client: PostgresClient, schema: String) {
        self.client = client
        self.schema = schema
    }

    func begin() {
        let ready = DispatchSemaphore(value: 0)
        let noWait = state.withLock { state -> Bool in
            // Closed: nothing to listen with; the observation's first query says so.
            if state.closed { return true }
            state.pending = []
            state.missed = false
            if state.listening { return true }
            state.waiters.append(ready)
            if state.task == nil {
                state.task = Task(executorPreference: PostgresExecutor.shared) { [weak self] in await self?.listen() }
            }
            return false
        }
        if noWait { return }
        if ready.wait(timeout: .now() + 5) == .timedOut {
            // Not listening yet (the server is away): the first notifications may be lost.
            state.withLock { $0.missed = true }
        }
    }

    func changes() -> [StorageChange] {
        state.withLock { state in
            // Closed: wake the observations waiting out a failure, so that they end.
            if state.missed && (state.closed || state.listening && ContinuousClock.now >= state.retryAt) {
                state.missed = false
                state.pending = []
                return [.everything]
            }
            defer { state.pending = [] }
            return state.pending
        }
    }

    func end() {
        stop()
    }

    func observationOutlives(_ error: any Error) -> Bool {
        guard PostgresFailure.passes(error) else { return false }
        return state.withLock { state in
            if state.closed { return false }
            state.passingFailures += 1
            state.retryAt = ContinuousClock.now + Self.pause(after: state.passingFailures)
            state.missed = true
            return true
        }
    }

    /// Stops listening and releases the connection; ``begin()`` starts again.
    func stop() {
        let task = state.withLock { state -> Task<Void, Never>? in
            defer {
                state.task = nil
                state.listening = false
            }
            return state.task
        }
        task?.cancel()
    }

    /// Stops listening for good: the context was closed. Observations waiting out a failure are
    /// woken by the next ``changes()``, and end with the error their query then throws.
    func close() {
        state.withLock { state in
            state.closed = true
            state.missed = true
        }
        stop()
    }

    /// Listens until cancelled, connecting again after a failure, with a growing pause.
    private func listen() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: PostgresSchema.channel) { notifications in
                        let waiters = self.state.withLock { state -> [DispatchSemaphore] in
                            state.listening = true
                            state.passingFailures = 0
                            state.retryAt = ContinuousClock.now
                            defer { state.waiters = [] }
                            return state.waiters
                        }
                        for waiter in waiters { waiter.signal() }
                        for try await notification in notifications { self.receive(notification.payload) }
                    }
                }
            } catch {
                // The connection is gone (or was never made): listen again after a pause.
            }
            let listened = state.withLock { state -> Bool in
                let listened = state.listening
                if listened { state.missed = true }
                state.listening = false
                return listened
            }
            failures = listened ? 1 : failures + 1
            try? await Task.sleep(for: Self.pause(after: failures))
        }
    }

    private func receive(_ payload: String) {
        guard let announcement = try? JSONDecoder().decode(Announcement.self, from: Data(payload.utf8)) else {
            state.withLock { $0.pending.append(.everything) }
            return
        }
        guard announcement.schema == schema, announcement.origin != origin else { return }
        // A transaction's types are appended at once, so that observers hear of them in one batch.
        let changes =
            announcement.entities?.map(StorageChange.entity)
            ?? [StorageChange(entityName: announcement.entity, storageKeys: announcement.keys.map(Set.init))]
        state.withLock { $0.pending.append(contentsOf: changes) }
    }
}
