/// Transactions in memory: the handle is a context of its own that takes each entity type's
/// table from its context when it first touches the type (a copy that shares the records, see
/// `InMemoryTable`), and commit puts the tables it wrote back in one step under the context's lock.
///
/// Nobody waits for a transaction. It sees each type as it was when it first touched it, plus its
/// own writes; when another writer changed, meanwhile, an entity type the transaction wrote (or
/// reset the store), the commit fails with ``StorageError/Kind/transactionConflict(_:)`` and
/// nothing of the transaction is kept: the first to commit wins.
extension InMemoryStorageContext: TransactionalStorageContext, TransactionSteps {
    /// Runs `body` with a handle on a new transaction and commits what it wrote, all at once,
    /// when it returns. ``BaseDao``s made on the handle read their own writes, queries and counts
    /// included, while readers of this context see none of them until the commit. Called on a
    /// handle, it nests: a savepoint that commits into the outer transaction.
    ///
    /// Taking a type copies none of its records: the first write to a type copies its table's
    /// directory (a reference per record), and each record written is replaced rather than
    /// changed in place, so a transaction costs time mostly in proportion to what it writes.
    /// - Throws: what `body` throws, with nothing committed;
    ///   ``StorageError/Kind/transactionConflict(_:)`` when another writer changed, after the
    ///   transaction first touched it, an entity type it wrote (nothing committed; run it again);
    ///   ``StorageError/Kind/transactionClosed`` on a handle whose transaction ended.
    public func transaction<Result>(_ body: (InMemoryStorageContext) throws -> Result) throws -> Result {
        try runTransaction(body)
    }

    /// The `async` form of `transaction(_:)`: the same isolation, commit and errors.
    /// - Throws: as `transaction(_:)`.
    public func transaction<Result: Sendable>(
        _ body: @Sendable (InMemoryStorageContext) async throws -> Result
    ) async throws -> Result {
        try await runTransaction(body)
    }

    package func beginTransaction() throws -> InMemoryStorageContext {
        InMemoryStorageContext(transactionOf: self, generation: try withState { $0.generation })
    }

    /// Closes the handle and returns its state, when it was still open.
    @discardableResult
    private func endTransaction() -> State? {
        let ended = try? state.withLock { state -> State? in
            guard state.isOpen else { return nil }
            let ended = state
            state = State()
            state.isOpen = false
            return ended
        }
        return ended ?? nil  // the copies are released here, after the lock
    }

    /// Puts the tables the handle wrote into this context, unless another writer changed one of
    /// their types since the handle copied it; then announces them at once.
    package func commitTransaction(_ handle: InMemoryStorageContext) throws {
        guard let done = handle.endTransaction(), done.wasReset || !done.written.isEmpty else { return }
        let replaced = try withState { state -> [String: InMemoryTable] in
            try Self.checkNoConflict(done, in: state)
            var replaced: [String: InMemoryTable] = [:]
            if done.wasReset {
                replaced = state.tables
                state.tables = done.tables
                state.markReset()
                for name in done.tables.keys { state.markChanged(name) }
            } else {
                for name in done.written {
                    replaced[name] = state.tables[name]
                    state.tables[name] = done.tables[name]
                    state.markChanged(name)
                }
            }
            state.nextOrder = max(state.nextOrder, done.nextOrder)
            return replaced
        }
        withExtendedLifetime(replaced) {}  // released here, after the lock
        notifier?.post(contentsOf: done.wasReset ? [.everything] : done.written.sorted().map(StorageChange.entity))
    }

    package func abandonTransaction(_ handle: InMemoryStorageContext) {
        handle.endTransaction()
    }

    /// Throws ``StorageError/Kind/transactionConflict(_:)`` when `state` changed, after the
    /// transaction `done` read it, in a way its commit would overwrite.
    private static func checkNoConflict(_ done: State, in state: State) throws {
        if done.wasReset {
            if state.generation != done.baseGeneration {
                throw StorageError(.transactionConflict("the store changed while a transaction that reset it ran"))
            }
            return
        }
        if state.resetAt > done.baseGeneration {
            throw StorageError(.transactionConflict("the store was reset while the transaction ran"))
        }
        for name in done.written.sorted() {
            let copiedAt = done.loaded[name] ?? done.baseGeneration
            if state.changedAt[name, default: 0] > copiedAt {
                throw StorageError(
                    .transactionConflict("another writer changed \(name) while the transaction ran"), entityName: name)
            }
        }
    }
}
