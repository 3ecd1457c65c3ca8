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
/// sent meanwhile are lost too: the next ``changes()`` reports ``StorageChange/everything`` once
/// listening again, so observers re-run rather than miss a write.
final class PostgresChangeListener: ExternalChangeMonitor, Sendable {
    /// What a commit announces: the `NOTIFY` payload, as JSON.
    struct Announcement: Codable {
        var schema: String
        var origin: String
        var entity: String?
        var keys: [String]?

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
    }

    init(client: PostgresClient, schema: String) {
        self.client = client
        self.schema = schema
    }

    func begin() {
        let ready = DispatchSemaphore(value: 0)
        let alreadyListening = state.withLock { state -> Bool in
            state.pending = []
            state.missed = false
            if state.listening { return true }
            state.waiters.append(ready)
            if state.task == nil {
                state.task = Task(executorPreference: PostgresExecutor.shared) { [weak self] in await self?.listen() }
            }
            return false
        }
        if alreadyListening { return }
        if ready.wait(timeout: .now() + 5) == .timedOut {
            // Not listening yet (the server is away): the first notifications may be lost.
            state.withLock { $0.missed = true }
        }
    }

    func changes() -> [StorageChange] {
        state.withLock { state in
            if state.missed && state.listening {
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

    /// Stops listening and releases the connection.
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

    /// Listens until cancelled, reconnecting after a failure.
    private func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: PostgresSchema.channel) { notifications in
                        let waiters = self.state.withLock { state -> [DispatchSemaphore] in
                            state.listening = true
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
            state.withLock { state in
                if state.listening { state.missed = true }
                state.listening = false
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    private func receive(_ payload: String) {
        guard let announcement = try? JSONDecoder().decode(Announcement.self, from: Data(payload.utf8)) else {
            state.withLock { $0.pending.append(.everything) }
            return
        }
        guard announcement.schema == schema, announcement.origin != origin else { return }
        let change = StorageChange(entityName: announcement.entity, storageKeys: announcement.keys.map(Set.init))
        state.withLock { $0.pending.append(change) }
    }
}
