import CSQLite
import DAOKit

/// Transactions in SQLite: one SQLite transaction (`BEGIN IMMEDIATE`) on a connection of the
/// transaction's own, so that the context's connection keeps serving readers meanwhile; a nested
/// transaction is a `SAVEPOINT` on the same connection.
///
/// Isolation is SQLite's: the transaction holds the database's write lock from its first
/// statement to its commit, so no other writer — another thread through the context, another
/// context or process on the file — changes anything meanwhile; they wait up to the busy timeout
/// (30 seconds) and then fail with `SQLITE_BUSY`. Readers never wait (WAL), and see the database
/// as it was until the commit.
extension SQLiteStorageContext: TransactionalStorageContext, TransactionSteps {
    /// Runs `body` with a handle on a new SQLite transaction and commits when it returns; on a
    /// handle, runs it in a savepoint of that handle's transaction instead. ``BaseDao``s made on
    /// the handle read their own writes, queries and counts included. Other writers wait until the
    /// commit (see the type's documentation): so must not the body, which writes through the
    /// handle only — a write through the context itself from inside the body waits for the
    /// transaction and fails after the busy timeout.
    /// - Throws: what `body` throws, after rolling back; ``StorageError`` when the transaction
    ///   cannot begin (another writer held the database past the busy timeout: an
    ///   ``SQLiteError`` with `SQLITE_BUSY` underneath) or commit (nothing committed then);
    ///   ``StorageError/Kind/unsupported(_:)`` for a database in memory, which has one connection;
    ///   ``StorageError/Kind/transactionClosed`` on a handle whose transaction ended.
    public func transaction<Result>(_ body: (SQLiteStorageContext) throws -> Result) throws -> Result {
        try runTransaction(body)
    }

    /// The `async` form of `transaction(_:)`: the same transaction and errors. Beginning may wait
    /// for another writer's lock on the calling thread.
    /// - Throws: as `transaction(_:)`.
    public func transaction<Result: Sendable>(
        _ body: @Sendable (SQLiteStorageContext) async throws -> Result
    ) async throws -> Result {
        try await runTransaction(body)
    }

    // MARK: - Steps

    /// The savepoint of a nested transaction `id`.
    private static func savepoint(_ id: UInt64) -> String { "daokit_transaction_\(id)" }

    /// A handle on a new transaction: a savepoint on this handle's connection, or a connection
    /// of its own in `BEGIN IMMEDIATE`.
    package func beginTransaction() throws -> SQLiteStorageContext {
        if transactionID != nil {
            return try withConnection(entityName: nil) { state in
                let id = state.nextTransactionID
                state.nextTransactionID += 1
                do {
                    try state.connection.execute("SAVEPOINT \(Self.savepoint(id))")
                } catch let failure as SQLiteError {
                    throw StorageError(sqlite: failure, entityName: nil, location: location)
                }
                state.openTransactions.append(id)
                return SQLiteStorageContext(transactionOn: self.state, id: id, of: self)
            }
        }
        if location == ":memory:" {
            throw StorageError(
                .unsupported("a database in memory has one connection and cannot run a transaction beside it"),
                location: location)
        }
        let (spare, tables) = try withConnection(entityName: nil) { state in
            (state.spareConnections.popLast(), state.tables)
        }
        do {
            let connection = try spare ?? openConnection()
            try connection.execute("BEGIN IMMEDIATE")
            var state = State(connection: connection)
            state.openTransactions = [0]
            // What the context knows of its tables is facts of the file, not of a connection
            // (see `SQLiteTable`), so it serves the transaction's connection as well: without it,
            // every transaction would read the schema of every table it touches again.
            state.tables = tables
            return SQLiteStorageContext(transactionOn: ContextLock(state), id: 0, of: self)
        } catch let failure as SQLiteError {
            throw StorageError(sqlite: failure, entityName: nil, location: location)
        }
    }

    /// A connection to this context's file, set up as the context's own.
    private func openConnection() throws(SQLiteError) -> SQLiteConnection {
        let connection = try SQLiteConnection(path: location)
        try connection.execute("PRAGMA synchronous = FULL")
        try connection.execute("PRAGMA cell_size_check = ON")
        return connection
    }

    /// Commits the handle's transaction (releases its savepoint), then announces what it wrote
    /// once; a failure rolls everything back.
    package func commitTransaction(_ handle: SQLiteStorageContext) throws {
        guard let (written, wasReset, tables) = try end(handle, committing: true) else { return }
        if written.isEmpty && !wasReset { return }
        // The transaction held the write lock until its commit, so what it knew of the tables it
        // wrote (created, widened, indexed) is now the newest; a table it forgot (a savepoint
        // rolled back) is read again from the database.
        try? withConnection(entityName: nil) { state in
            if wasReset { state.tables = [:] }
            for name in written { state.tables[name] = tables[name] }
        }
        notifier.post(contentsOf: wasReset ? [.everything] : written.sorted().map(StorageChange.entity))
    }

    package func abandonTransaction(_ handle: SQLiteStorageContext) {
        _ = try? end(handle, committing: false)
    }

    /// Ends the handle's transaction or savepoint, committing or rolling back, and closes the
    /// handle; returns what the outermost transaction wrote, whether it reset the store and what
    /// it knew of the tables at the end, when it committed it, else `nil`.
    @discardableResult
    private func end(_ handle: SQLiteStorageContext, committing: Bool) throws -> (
        written: Set<String>, wasReset: Bool, tables: [String: SQLiteTable]
    )? {
        guard let id = handle.transactionID else { return nil }
        let outcome = try handle.state.withLock { state -> (Set<String>, Bool, [String: SQLiteTable])? in
            guard let position = state.openTransactions.firstIndex(of: id) else { return nil }
            let connection = state.connection
            // Savepoints nested in this one and left open by an escaped handle end with it.
            state.openTransactions.removeSubrange(position...)
            let outermost = position == 0
            var failure: SQLiteError?
            if outermost {
                if committing && sqlite3_get_autocommit(connection.handle) == 0 {
                    do throws(SQLiteError) { try connection.execute("COMMIT") } catch { failure = error }
                } else if committing {
                    failure = SQLiteError(
                        extendedResultCode: SQLITE_ABORT, message: "SQLite rolled the transaction back")
                }
                if sqlite3_get_autocommit(connection.handle) == 0 { try? connection.execute("ROLLBACK") }
            } else {
                let name = Self.savepoint(id)
                if committing {
                    do throws(SQLiteError) { try connection.execute("RELEASE \(name)") } catch { failure = error }
                }
                if failure != nil || !committing {
                    try? connection.execute("ROLLBACK TO \(name)")
                    try? connection.execute("RELEASE \(name)")
                    // The savepoint may have created or widened tables that are gone again.
                    state.tables = [:]
                }
            }
            if let failure { throw StorageError(sqlite: failure, entityName: nil, location: location) }
            return outermost && committing ? (state.written, state.wasReset, state.tables) : nil
        }
        if handle.transactionID == 0 {
            // The connection, idle again, serves the next transaction.
            let connection = try? handle.state.withLock { $0.connection }
            if let connection, sqlite3_get_autocommit(connection.handle) != 0 {
                _ = try? withConnection(entityName: nil) { state in
                    if state.spareConnections.count < 2 { state.spareConnections.append(connection) }
                }
            }
        }
        return outcome
    }
}
