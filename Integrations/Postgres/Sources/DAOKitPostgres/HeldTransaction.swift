import DAOKit
import PostgresNIO

/// One transaction of ``PostgresStorageContext``: a pooled connection held from `BEGIN` to
/// `COMMIT` or `ROLLBACK`, shared by the transaction's handle and the handles of its nested
/// transactions (savepoints), and what was written at each level, for the one announcement at
/// the commit.
///
/// **One statement at a time.** A handle may be used from several tasks at once, but a
/// connection runs one statement after another, and a write's savepoint must not interleave with
/// another call's: every call waits for the one before it (``use(level:savepoint:entityName:key:_:)``).
///
/// **A doomed transaction.** PostgreSQL aborts a transaction on a statement it refuses: every
/// later statement fails until it rolls back. Writes run in a savepoint of their own, rolled back
/// when they fail, so a failed write leaves the rest of the transaction usable; a read the server
/// refuses cannot be undone that way, and a serialization failure or deadlock means the
/// transaction's snapshot is stale whatever is rolled back. Either dooms the transaction: later
/// calls throw, and committing rolls back and throws (a conflict as
/// ``StorageError/Kind/transactionConflict(_:)``, so that running the whole transaction again is
/// the caller's remedy). A read refused inside a nested transaction is undone with it.
final class HeldTransaction: Sendable {
    /// The transaction (id 0) or a nested transaction's savepoint, and what was written in it.
    struct Level: Sendable {
        let id: UInt64
        /// The keys written of each entity type; `nil` keys: any record of the type.
        var written: [String: Set<String>?] = [:]
        var wasReset = false
        /// The entity types whose field kinds a write recorded: the context reads them again.
        var kindsRecorded: Set<String> = []

        /// Adds what `inner` wrote, which commits with this level.
        mutating func absorb(_ inner: Level) {
            for (name, keys) in inner.written {
                // `updateValue`, because assigning a `nil` of keys through the subscript would
                // remove the type instead of recording "any record".
                if let known = written[name] {
                    written.updateValue(known.flatMap { known in keys.map { known.union($0) } }, forKey: name)
                } else {
                    written.updateValue(keys, forKey: name)
                }
            }
            wasReset = wasReset || inner.wasReset
            kindsRecorded.formUnion(inner.kindsRecorded)
        }
    }

    /// Why the transaction can only roll back, and at which level it happened.
    private struct Doom {
        var position: Int
        var error: any Error
        var isConflict: Bool

        /// What a call on the doomed transaction, or its commit, throws: the conflict itself
        /// (run the transaction again), or an error saying an earlier statement failed.
        func thrown(server: String) -> any Error {
            if isConflict { return error }
            let earlier = (error as? StorageError)?.description ?? String(describing: error)
            return StorageError(
                .io("an earlier statement of this transaction failed, so it can only roll back: \(earlier)"),
                location: server, underlyingError: error)
        }
    }

    private struct State {
        /// `nil` once the transaction has ended.
        var connection: PostgresConnection?
        /// Resumed to give the connection back to the pool.
        var release: CheckedContinuation<Void, Never>?
        /// The open levels, the transaction first.
        var levels: [Level] = []
        var nextID: UInt64 = 1
        var doom: Doom?
        var holdsDDLLock = false
        /// The tables calls tried to write, whether or not they succeeded.
        var attemptedTables: Set<String> = []
        var busy = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())
    private let server: String

    private init(server: String) {
        self.server = server
    }

    /// The isolation level of every transaction: a transaction runs as if alone, and one whose
    /// reads another's commit made stale fails with a serialization failure.
    static let beginStatement = "BEGIN ISOLATION LEVEL SERIALIZABLE"

    /// Leases a connection from `context`'s pool and begins a transaction on it; the connection
    /// stays leased until ``end(committing:payload:)``. `locking`: tables (quoted) to lock in
    /// `EXCLUSIVE` mode right after `BEGIN`, before the transaction's snapshot is taken (at its
    /// first query), so that no other writer changes them until it ends: readers go on.
    /// - Throws: ``StorageError`` when no connection comes, or `BEGIN` or `LOCK` fails.
    static func begin(on context: PostgresStorageContext, locking: [String] = []) async throws -> HeldTransaction {
        let held = HeldTransaction(server: context.serverDescription)
        let ready = Locked<CheckedContinuation<Void, any Error>?>(nil)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            ready.withLock { $0 = continuation }
            // The lease lasts as long as the work given to the pool: that work begins the
            // transaction, hands the connection over, and waits until the transaction ends.
            Task(executorPreference: PostgresExecutor.shared) {
                do {
                    try await context.withConnection(entityName: nil) { connection in
                        try await connection.execute(
                            PostgresQuery(unsafeSQL: Self.beginStatement), logger: PostgresStorageContext.logger)
                        if !locking.isEmpty {
                            try await connection.execute(
                                PostgresQuery(
                                    unsafeSQL: "LOCK TABLE \(locking.joined(separator: ", ")) IN EXCLUSIVE MODE"),
                                logger: PostgresStorageContext.logger)
                        }
                        await withCheckedContinuation { (release: CheckedContinuation<Void, Never>) in
                            held.state.withLock { state in
                                state.connection = connection
                                state.release = release
                                state.levels = [Level(id: 0)]
                            }
                            ready.withLock { ready -> CheckedContinuation<Void, any Error>? in
                                defer { ready = nil }
                                return ready
                            }?.resume()
                        }
                    }
                } catch {
                    // Also reached when the pooled call gave up on a connection that closed under
                    // the transaction (``PooledCall``): the caller has been answered then.
                    ready.withLock { ready -> CheckedContinuation<Void, any Error>? in
                        defer { ready = nil }
                        return ready
                    }?.resume(throwing: error)
                }
            }
        }
        return held
    }

    // MARK: - Calls

    /// Runs `body` on the connection, after the calls before it, for a handle at `level`;
    /// `savepoint`: in a savepoint of its own, rolled back when it throws.
    /// - Throws: ``StorageError/Kind/transactionClosed`` when the level has ended; the error that
    ///   doomed the transaction, when one did; what `body` throws, as a ``StorageError``.
    func use<T>(
        level: UInt64, savepoint: Bool, entityName: String?, key: String?,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        // On the context's executor, as every pooled call: never waiting for a cooperative thread
        // while it holds locks on the server.
        try await withTaskExecutorPreference(PostgresExecutor.shared) {
            await acquire()
            defer { relinquish() }
            let (connection, position) = try open(level, entityName: entityName, key: key)
            guard savepoint else {
                do {
                    return try await body(connection)
                } catch {
                    throw failed(error, at: position, entityName: entityName, key: key)
                }
            }
            do {
                try await connection.execute("SAVEPOINT daokit_call", logger: PostgresStorageContext.logger)
            } catch {
                throw failed(error, at: position, entityName: entityName, key: key)
            }
            do {
                let result = try await body(connection)
                try await connection.execute("RELEASE SAVEPOINT daokit_call", logger: PostgresStorageContext.logger)
                return result
            } catch {
                let mapped = PostgresFailure.storageError(error, server: server, entityName: entityName, key: key)
                let isConflict = PostgresFailure.ServerReport(error)?.isConflict == true
                var undone = false
                if !(error is CancellationError) && !PostgresFailure.endsTheSession(error) {
                    undone = await undoCall(on: connection)
                }
                // Undone, the call's writes are gone and the transaction is usable, unless the
                // server said its snapshot is stale.
                if !undone || isConflict { doom(Doom(position: position, error: mapped, isConflict: isConflict)) }
                throw mapped
            }
        }
    }

    /// Rolls back a call's savepoint; whether that worked.
    private func undoCall(on connection: PostgresConnection) async -> Bool {
        do {
            try await connection.execute("ROLLBACK TO SAVEPOINT daokit_call", logger: PostgresStorageContext.logger)
            try await connection.execute("RELEASE SAVEPOINT daokit_call", logger: PostgresStorageContext.logger)
            return true
        } catch {
            return false
        }
    }

    /// Records that a call tried to write `table` (quoted).
    func recordAttempt(on table: String) {
        state.withLock { _ = $0.attemptedTables.insert(table) }
    }

    /// The tables calls tried to write, sorted (the order every transaction locks them in).
    var attemptedTables: [String] { state.withLock { $0.attemptedTables.sorted() } }

    /// Records a write of `keys` (`nil`: any) of the type `entityName` at `level`.
    func recordWrite(of entityName: String, keys: [String]?, at level: UInt64) {
        state.withLock { state in
            guard let position = state.levels.firstIndex(where: { $0.id == level }) else { return }
            var inner = Level(id: level)
            inner.written.updateValue(keys.map(Set.init), forKey: entityName)
            state.levels[position].absorb(inner)
        }
    }

    /// Whether the transaction may hold the context's DDL lock (see
    /// ``PostgresStorageContext/lockDDL(on:)``), which it keeps until it ends.
    var holdsDDLLock: Bool { state.withLock { $0.holdsDDLLock } }

    /// Records that the transaction took the DDL lock.
    func noteDDLLock() {
        state.withLock { $0.holdsDDLLock = true }
    }

    /// Whether the transaction has written records of `entityName` (at any open level).
    func hasWritten(_ entityName: String) -> Bool {
        state.withLock { state in state.levels.contains { $0.wasReset || $0.written[entityName] != nil } }
    }

    /// Records a reset of the store at `level`.
    func recordReset(at level: UInt64) {
        state.withLock { state in
            guard let position = state.levels.firstIndex(where: { $0.id == level }) else { return }
            state.levels[position].wasReset = true
        }
    }

    /// Records that a write at `level` recorded field kinds of `entityName`.
    func recordKinds(of entityName: String, at level: UInt64) {
        state.withLock { state in
            guard let position = state.levels.firstIndex(where: { $0.id == level }) else { return }
            state.levels[position].kindsRecorded.insert(entityName)
        }
    }

    // MARK: - Nested transactions

    /// The savepoint of nested transaction `id`.
    private static func savepoint(_ id: UInt64) -> String { "daokit_transaction_\(id)" }

    /// Begins a nested transaction inside `level`; returns its level.
    /// - Throws: as ``use(level:savepoint:entityName:key:_:)``.
    func beginNested(in level: UInt64) async throws -> UInt64 {
        try await withTaskExecutorPreference(PostgresExecutor.shared) {
            await acquire()
            defer { relinquish() }
            let (connection, position) = try open(level, entityName: nil, key: nil)
            let id = state.withLock { state -> UInt64 in
                defer { state.nextID += 1 }
                return state.nextID
            }
            do {
                try await connection.execute(
                    PostgresQuery(unsafeSQL: "SAVEPOINT \(Self.savepoint(id))"), logger: PostgresStorageContext.logger)
            } catch {
                throw failed(error, at: position, entityName: nil, key: nil)
            }
            state.withLock { $0.levels.append(Level(id: id)) }
            return id
        }
    }

    /// Ends nested transaction `id`: releases its savepoint, so that what it wrote is the
    /// enclosing level's, or rolls it back. Nothing when it has ended.
    /// - Throws: when committing, the error that dooms the transaction (the nested transaction
    ///   is rolled back then), or a ``StorageError`` when the savepoint cannot be released.
    func endNested(_ id: UInt64, committing: Bool) async throws {
        try await withTaskExecutorPreference(PostgresExecutor.shared) {
            await acquire()
            defer { relinquish() }
            let found = state.withLock { state -> (PostgresConnection, Int, Doom?)? in
                guard let connection = state.connection,
                    let position = state.levels.firstIndex(where: { $0.id == id }), position > 0
                else { return nil }
                return (connection, position, state.doom)
            }
            guard let (connection, position, doom) = found else { return }
            let name = Self.savepoint(id)
            if committing && doom == nil {
                do {
                    try await connection.execute(
                        PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(name)"), logger: PostgresStorageContext.logger)
                    state.withLock { state in
                        // Levels above this one belong to escaped handles: they end with it.
                        for inner in state.levels[position...] { state.levels[position - 1].absorb(inner) }
                        state.levels.removeSubrange(position...)
                    }
                    return
                } catch {
                    let failure = failed(error, at: position, entityName: nil, key: nil)
                    await rollBack(to: name, at: position, on: connection)
                    throw failure
                }
            }
            await rollBack(to: name, at: position, on: connection)
            if committing, let doom {
                throw doom.thrown(server: server)
            }
        }
    }

    /// Rolls back to savepoint `name` of the level at `position` and closes that level (and any
    /// above it); a doom that happened inside it, other than a conflict, is lifted with it.
    private func rollBack(to name: String, at position: Int, on connection: PostgresConnection) async {
        do {
            try await connection.execute(
                PostgresQuery(unsafeSQL: "ROLLBACK TO SAVEPOINT \(name)"), logger: PostgresStorageContext.logger)
            try await connection.execute(
                PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(name)"), logger: PostgresStorageContext.logger)
            state.withLock { state in
                if let doom = state.doom, !doom.isConflict, doom.position >= position { state.doom = nil }
            }
        } catch {
            _ = failed(error, at: 0, entityName: nil, key: nil)
        }
        state.withLock { state in
            if state.levels.count > position { state.levels.removeSubrange(position...) }
        }
    }

    // MARK: - The end

    /// Commits (after sending `payload(what was written)` by `NOTIFY`, unless `nil`) or rolls
    /// back the transaction, and gives the connection back; returns what it wrote when it
    /// committed, `nil` when it had ended already or rolled back.
    /// - Throws: when committing, the error that doomed the transaction, or a ``StorageError`` when
    ///   `COMMIT` fails (``StorageError/Kind/transactionConflict(_:)`` for a serialization
    ///   failure); the transaction is rolled back then.
    func end(committing: Bool, payload: (Level) -> String?) async throws -> Level? {
        try await withTaskExecutorPreference(PostgresExecutor.shared) {
            await acquire()
            defer { relinquish() }
            let found = state.withLock { state -> (PostgresConnection, Level, Doom?)? in
                guard let connection = state.connection, var level = state.levels.first else { return nil }
                for inner in state.levels.dropFirst() { level.absorb(inner) }
                return (connection, level, state.doom)
            }
            guard let (connection, level, doom) = found else { return nil }
            guard committing else {
                await rollBackAndFinish(connection)
                return nil
            }
            if let doom {
                await rollBackAndFinish(connection)
                throw doom.thrown(server: server)
            }
            do {
                if let payload = payload(level) {
                    var binds = PostgresBindings()
                    binds.append(PostgresSchema.channel)
                    binds.append(payload)
                    try await connection.execute(
                        PostgresQuery(unsafeSQL: "SELECT pg_notify($1, $2)", binds: binds),
                        logger: PostgresStorageContext.logger)
                }
                try await connection.execute("COMMIT", logger: PostgresStorageContext.logger)
            } catch {
                let failure = PostgresFailure.storageError(error, server: server, entityName: nil)
                if PostgresFailure.endsTheSession(error) {
                    await finish(closing: true)
                } else {
                    await rollBackAndFinish(connection)
                }
                throw failure
            }
            await finish(closing: false)
            return level
        }
    }

    private func rollBackAndFinish(_ connection: PostgresConnection) async {
        do {
            try await connection.execute("ROLLBACK", logger: PostgresStorageContext.logger)
            await finish(closing: false)
        } catch {
            // A connection left inside a transaction must not go back to the pool.
            await finish(closing: true)
        }
    }

    /// Ends the transaction here and gives the connection back to the pool, closed when it
    /// cannot serve another call.
    private func finish(closing: Bool) async {
        let (connection, release) = state.withLock {
            state -> (PostgresConnection?, CheckedContinuation<Void, Never>?) in
            defer {
                state.connection = nil
                state.release = nil
                state.levels = []
            }
            return (state.connection, state.release)
        }
        if closing { try? await connection?.close() }
        release?.resume()
    }

    // MARK: - Internals

    /// The connection and the position of `level`, if the level is open and nothing doomed the
    /// transaction.
    private func open(_ level: UInt64, entityName: String?, key: String?) throws -> (PostgresConnection, Int) {
        try state.withLock { state -> (PostgresConnection, Int) in
            guard let connection = state.connection,
                let position = state.levels.firstIndex(where: { $0.id == level })
            else {
                throw StorageError(.transactionClosed, entityName: entityName, key: key, location: server)
            }
            if let doom = state.doom {
                throw doom.thrown(server: server)
            }
            return (connection, position)
        }
    }

    /// `error`, thrown by a call at `position`, as a ``StorageError``; dooms the transaction
    /// unless DAOKit's own code threw it (a record that does not decode leaves the server's
    /// transaction as it was).
    private func failed(_ error: any Error, at position: Int, entityName: String?, key: String?) -> any Error {
        let mapped = PostgresFailure.storageError(error, server: server, entityName: entityName, key: key)
        if !(error is StorageError) {
            let isConflict = PostgresFailure.ServerReport(error)?.isConflict == true
            doom(Doom(position: position, error: mapped, isConflict: isConflict))
        }
        return mapped
    }

    /// Keeps the first reason the transaction can only roll back.
    private func doom(_ doom: Doom) {
        state.withLock { state in
            if state.doom == nil { state.doom = doom }
        }
    }

    /// Waits until no other call uses the connection.
    private func acquire() async {
        let free = state.withLock { state -> Bool in
            if state.busy { return false }
            state.busy = true
            return true
        }
        if free { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if !state.busy {
                    state.busy = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets the next waiting call use the connection.
    private func relinquish() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.busy = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
