/// A ``StorageContext`` that runs several calls, over any entity types, as one transaction: an
/// explicit handle, passed to a body, that everything inside writes and reads through.
///
/// ```swift
/// try context.transaction { tx in
///     try BaseDao<Task, TaskEntity>(context: tx).create(task)
///     try BaseDao<Comment, CommentEntity>(context: tx).create(comment)
/// }
/// ```
///
/// The handle is itself a context of the same type, so ``BaseDao`` works on it unchanged. A
/// conforming context promises (the DAOKit catalog's article "Transactions" says how each shipped
/// context keeps them):
/// - everything written through the handle commits together when the body returns, or not at all
///   when it throws: the body's error is rethrown and nothing of the transaction stays;
/// - reads through the handle, queries and counts included, see the transaction's own writes;
///   readers outside never see part of it;
/// - observers hear of it once, after it commits, with every entity type it changed, and never of
///   one that rolled back;
/// - `transaction(_:)` called on the handle nests: a savepoint, whose error rolls back
///   only what the nested body wrote;
/// - a handle used after its body returned throws ``StorageError/Kind/transactionClosed``.
///
/// A context that cannot keep these promises does not conform, so code that needs a transaction
/// does not compile against it.
public protocol TransactionalStorageContext: StorageContext {
    /// Runs `body` with a handle on a new transaction, and commits what it wrote through the
    /// handle when it returns.
    /// - Returns: what `body` returns, once the transaction has committed.
    /// - Throws: what `body` throws, after rolling everything back; or a ``StorageError`` when the
    ///   transaction cannot begin or commit (``StorageError/Kind/transactionConflict(_:)``, an I/O
    ///   failure), with nothing committed; ``StorageError/Kind/transactionClosed`` when called on
    ///   a handle whose body has returned.
    func transaction<Result>(_ body: (Self) throws -> Result) throws -> Result

    /// Runs the `async` `body` with a handle on a new transaction, and commits what it wrote
    /// through the handle when it returns; ``BaseDao``'s `async` methods work on the handle.
    /// - Returns: what `body` returns, once the transaction has committed.
    /// - Throws: as `transaction(_:)`; a cancelled task's `CancellationError` from the
    ///   body rolls back as any error does.
    func transaction<Result: Sendable>(_ body: @Sendable (Self) async throws -> Result) async throws -> Result
}

/// A ``TransactionalStorageContext`` that runs a transaction again by itself when it ends in
/// ``StorageError/Kind/transactionConflict(_:)``, with a strategy of its own: a context whose
/// transactions can keep losing to one another (optimistic ones, such as PostgreSQL's) makes a
/// second run win, where running `transaction(_:)` again in a loop could lose every time.
/// ``BaseDao/update(id:attempts:_:)-ydji`` uses it when the context conforms.
public protocol RetryingTransactionalStorageContext: TransactionalStorageContext {
    /// Runs `body` as `transaction(_:)` does, and again from the start, on a new transaction,
    /// when that ends in ``StorageError/Kind/transactionConflict(_:)``, up to `attempts` runs in
    /// all. `body` must be safe to run several times: it only reads and writes through the handle.
    /// - Throws: as `transaction(_:)`; the last run's
    ///   ``StorageError/Kind/transactionConflict(_:)`` when every run met a conflict.
    func transaction<Result>(retrying attempts: Int, _ body: (Self) throws -> Result) throws -> Result
}
