import DAOKit
import Foundation
import PostgresNIO

/// Transactions on PostgreSQL: one server transaction, `SERIALIZABLE`, on one pooled connection
/// held from `BEGIN` to `COMMIT`; a nested transaction is a `SAVEPOINT` on it (see
/// `HeldTransaction.swift`).
///
/// **Isolation.** `SERIALIZABLE`: the transaction reads one snapshot, taken at its first
/// statement, so what another writer commits meanwhile is invisible to it; and when another
/// transaction's commit would make its outcome differ from running the two one after the other
/// (it changed a record this one read or writes), one of them fails with a serialization
/// failure, which is ``StorageError/Kind/transactionConflict(_:)`` here, as is a deadlock the
/// server broke. Such a transaction has written nothing; running it again is the remedy, and
/// `transaction(retrying:_:)` does it. Readers outside never see part of a transaction.
///
/// **Retrying is the caller's choice.** `transaction(_:)` never runs its body twice: the
/// body is a closure, which may do more than write through the handle (send a message, append to
/// an array), and running it again would do that twice. A caller whose body only touches the
/// handle says so with `transaction(retrying:_:)`, which ``BaseDao/update(id:attempts:_:)`` uses.
/// A run after a conflict first locks the tables the failed run wrote (`LOCK TABLE … IN EXCLUSIVE
/// MODE`, before its snapshot): other writers of those tables wait for it, readers do not, and it
/// cannot lose to them again — two instances incrementing one counter would otherwise take turns
/// losing, the one that just committed being a step ahead of the one that just rolled back.
///
/// **Observers** hear of a transaction once, after its commit, with every entity type it wrote:
/// in this process through ``changeNotifier``, in other instances by one `NOTIFY` sent just
/// before `COMMIT` (PostgreSQL delivers it only if the transaction commits). The handle's own
/// writes send none.
extension PostgresStorageContext: RetryingTransactionalStorageContext {
    /// Runs `body` with a handle on a new transaction and commits when it returns; on a handle,
    /// runs it in a savepoint of that handle's transaction instead. ``BaseDao``s made on the handle
    /// read their own writes, queries and counts included. The handle holds one pooled connection
    /// until the end; a write through the context itself (not the handle) from inside the body to
    /// a record the transaction wrote waits for the transaction, which waits for the body: it
    /// never returns.
    /// - Throws: what `body` throws, after rolling back;
    ///   ``StorageError/Kind/transactionConflict(_:)`` when another transaction's commit conflicted
    ///   with this one (at any statement or at `COMMIT`): nothing was committed, and the body may
    ///   be run again (`transaction(retrying:_:)`); another ``StorageError`` when the
    ///   transaction cannot begin or commit (nothing committed) or a statement the server refused
    ///   left it able only to roll back; ``StorageError/Kind/transactionClosed`` on a handle whose
    ///   transaction ended.
    public func transaction<Result>(_ body: (PostgresStorageContext) throws -> Result) throws -> Result {
        try run(body, on: try blocking(nil) { try await self.beginTransaction() })
    }

    /// The `async` form of `transaction(_:)`: the same transaction and errors.
    /// - Throws: as `transaction(_:)`; a cancelled task's `CancellationError` from the
    ///   body rolls back as any error does.
    public func transaction<Result: Sendable>(
        _ body: @Sendable (PostgresStorageContext) async throws -> Result
    ) async throws -> Result {
        try await run(body, on: try await beginTransaction())
    }

    /// `transaction(_:)`, run again from the start, on a new transaction, when it ends in
    /// ``StorageError/Kind/transactionConflict(_:)``, up to `attempts` runs in all. A run after a
    /// conflict begins by locking the tables the failed run wrote, so that no other writer changes
    /// them until it ends (see the type's "Retrying"); one that wrote nothing first pauses a short
    /// random time that grows with each run.
    ///
    /// Call it only with a body that is safe to run several times: one that does nothing but
    /// read and write through the handle and compute its result from what it read. On a handle
    /// it runs `body` once, as a nested transaction: a conflict leaves the enclosing transaction
    /// able only to roll back, and that transaction is the one to run again.
    /// - Parameter attempts: how many times `body` runs at most; a number below 1 counts as 1.
    /// - Throws: as `transaction(_:)`; the last attempt's
    ///   ``StorageError/Kind/transactionConflict(_:)`` when every attempt met a conflict.
    public func transaction<Result>(
        retrying attempts: Int, _ body: (PostgresStorageContext) throws -> Result
    ) throws -> Result {
        if held != nil { return try transaction(body) }
        var attempt = 1
        var locking: [String] = []
        while true {
            let handle = try blocking(nil) { [locking] in try await self.beginTransaction(locking: locking) }
            do {
                return try run(body, on: handle)
            } catch let error as StorageError where error.code == .transactionConflict && attempt < attempts {
                locking = handle.held?.attemptedTables ?? []
                if locking.isEmpty { Thread.sleep(forTimeInterval: Self.pause(before: attempt + 1)) }
                attempt += 1
            }
        }
    }

    /// The `async` form of `transaction(retrying:_:)`.
    /// - Throws: as `transaction(retrying:_:)`; `CancellationError` when the task is
    ///   cancelled during a pause.
    public func transaction<Result: Sendable>(
        retrying attempts: Int, _ body: @Sendable (PostgresStorageContext) async throws -> Result
    ) async throws -> Result {
        if held != nil { return try await transaction(body) }
        var attempt = 1
        var locking: [String] = []
        while true {
            let handle = try await beginTransaction(locking: locking)
            do {
                return try await run(body, on: handle)
            } catch let error as StorageError where error.code == .transactionConflict && attempt < attempts {
                locking = handle.held?.attemptedTables ?? []
                if locking.isEmpty { try await Task.sleep(for: .seconds(Self.pause(before: attempt + 1))) }
                attempt += 1
            }
        }
    }

    /// The pause before `attempt` (2 or more), in seconds: random, below 1 ms for the second
    /// attempt and twice as long for each after it, at most 64 ms.
    static func pause(before attempt: Int) -> Double {
        let ceiling = Double(1 << min(max(attempt - 2, 0), 6)) / 1_000
        return Double.random(in: 0..<ceiling)
    }

    // MARK: - Steps

    /// Runs `body` on `handle`, a transaction just begun, and commits it; rolls it back and
    /// rethrows when `body` throws.
    private func run<Result>(
        _ body: (PostgresStorageContext) throws -> Result, on handle: PostgresStorageContext
    ) throws -> Result {
        let result: Result
        do {
            result = try body(handle)
        } catch {
            try? blocking(nil) { await self.abandonTransaction(handle) }
            throw error
        }
        try blocking(nil) { try await self.commitTransaction(handle) }
        return result
    }

    /// The `async` form of `run(_:on:)`.
    private func run<Result: Sendable>(
        _ body: @Sendable (PostgresStorageContext) async throws -> Result, on handle: PostgresStorageContext
    ) async throws -> Result {
        let result: Result
        do {
            result = try await body(handle)
        } catch {
            await abandonTransaction(handle)
            throw error
        }
        try await commitTransaction(handle)
        return result
    }

    /// A handle on a new transaction that first locks the tables `locking` (quoted; see
    /// `HeldTransaction.begin(on:locking:)`), or on a handle a nested one.
    func beginTransaction(locking: [String] = []) async throws -> PostgresStorageContext {
        if let held {
            let id = try await held.beginNested(in: level)
            return PostgresStorageContext(handleOn: self, held: held, level: id)
        }
        let held = try await HeldTransaction.begin(on: self, locking: locking)
        return PostgresStorageContext(handleOn: self, held: held, level: 0)
    }

    /// Commits the transaction of `handle`, begun on this context (or releases the savepoint of
    /// a nested one, begun on this handle), then tells this context what the transaction learnt
    /// of the tables and announces what it wrote, once.
    func commitTransaction(_ handle: PostgresStorageContext) async throws {
        guard let held = handle.held else { return }
        if handle.level != 0 {
            try await held.endNested(handle.level, committing: true)
            // The enclosing transaction now holds what the nested one created.
            let known = handle.state.withLock { $0 }
            state.withLock { state in
                state.bootstrapped = known.bootstrapped
                state.tables = known.tables
            }
            return
        }
        guard let written = try await held.end(committing: true, payload: transactionPayload) else { return }
        // Committed: the tables the transaction created or indexed exist for everyone now. Kinds
        // it recorded are read again; those read inside it (of its own snapshot) are not kept.
        let known = handle.state.withLock { $0 }
        state.withLock { state in
            if known.bootstrapped { state.bootstrapped = true }
            for (name, table) in known.tables {
                if table.created { state.tables[name, default: TableState()].created = true }
                if table.indexesEnsured { state.tables[name, default: TableState()].indexesEnsured = true }
            }
            for name in written.kindsRecorded { state.tables[name]?.kinds = nil }
        }
        if written.wasReset {
            notifier.post(.everything)
        } else {
            notifier.post(
                contentsOf: written.written.sorted { $0.key < $1.key }.map {
                    StorageChange(entityName: $0.key, storageKeys: $0.value)
                })
        }
    }

    /// Rolls back the transaction (or nested transaction) of `handle`; never fails: a
    /// connection that cannot roll back is closed, which rolls back.
    func abandonTransaction(_ handle: PostgresStorageContext) async {
        guard let held = handle.held else { return }
        if handle.level != 0 {
            try? await held.endNested(handle.level, committing: false)
        } else {
            _ = try? await held.end(committing: false, payload: { _ in nil })
        }
    }

    /// The `NOTIFY` payload announcing a committed transaction to other instances; `nil` when it
    /// wrote nothing. One type: as a single write announces itself; several: their names.
    private func transactionPayload(_ written: HeldTransaction.Level) -> String? {
        if written.wasReset { return notificationPayload(entityName: nil, keys: nil) }
        if written.written.isEmpty { return nil }
        if written.written.count == 1, let (name, keys) = written.written.first {
            return notificationPayload(entityName: name, keys: keys.map { $0.sorted() })
        }
        var change = PostgresChangeListener.Announcement(
            schema: schema, origin: listener.origin, entity: nil, keys: nil, entities: written.written.keys.sorted())
        if let text = change.encoded(), text.utf8.count < 7_900 { return text }
        change.entities = nil
        return change.encoded() ?? ""
    }

    // MARK: - Announcing writes

    /// The SQL expression, of type `text`, that announces a write to other instances with
    /// `NOTIFY` (`channel` and `payload` are its parameters); on a transaction's handle one that
    /// announces nothing, since the transaction announces itself at its commit.
    func notifyCall(_ channel: String, _ payload: String) -> String {
        held == nil ? "pg_notify(\(channel), \(payload))" : "left(\(channel)::text || \(payload)::text, 0)"
    }

    /// Announces a committed write of `storageKeys` (`nil`: any record) of `entityName` to this
    /// process's observers; on a handle, records it for the transaction's announcement.
    func announce(_ entityName: String, storageKeys: [String]?) {
        if let held {
            held.recordWrite(of: entityName, keys: storageKeys, at: level)
        } else if let storageKeys {
            notifier.post(entityName: entityName, storageKeys: storageKeys)
        } else {
            notifier.post(.entity(entityName))
        }
    }

    /// Announces a committed ``reset()``, or records it on a handle.
    func announceReset() {
        if let held {
            held.recordReset(at: level)
        } else {
            notifier.post(.everything)
        }
    }
}
