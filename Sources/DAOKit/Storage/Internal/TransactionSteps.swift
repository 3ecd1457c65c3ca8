/// The three steps a shipped transactional context keeps a transaction with; `runTransaction`
/// puts them together once, so every context begins, rolls back and commits in the same order,
/// in the synchronous and the `async` form alike.
///
/// Why a separate protocol: ``TransactionalStorageContext`` is the public promise and says
/// nothing of how a context keeps it; these steps are the shipped contexts' shared way, which a
/// third-party context need not follow.
package protocol TransactionSteps: TransactionalStorageContext {
    /// A handle on a new transaction; on a handle, a nested one (a savepoint).
    /// - Throws: ``StorageError`` when the transaction cannot begin, or
    ///   ``StorageError/Kind/transactionClosed`` on a handle whose transaction ended.
    func beginTransaction() throws -> Self

    /// Makes what `handle` wrote part of this context (or of the outer transaction), closes the
    /// handle and announces the change.
    /// - Throws: ``StorageError`` when the commit fails; nothing of the transaction stays then.
    func commitTransaction(_ handle: Self) throws

    /// Closes `handle`, dropping everything written through it. Never fails: a transaction that
    /// cannot be rolled back explicitly is rolled back by its connection's end.
    func abandonTransaction(_ handle: Self)
}

extension TransactionSteps {
    /// Begins a transaction, runs `body` on its handle, then commits, or abandons the transaction
    /// and rethrows when `body` throws.
    package func runTransaction<Result>(_ body: (Self) throws -> Result) throws -> Result {
        let handle = try beginTransaction()
        let result: Result
        do {
            result = try body(handle)
        } catch {
            abandonTransaction(handle)
            throw error
        }
        try commitTransaction(handle)
        return result
    }

    /// The `async` form of `runTransaction(_:)`.
    package func runTransaction<Result: Sendable>(
        _ body: @Sendable (Self) async throws -> Result
    ) async throws -> Result {
        let handle = try beginTransaction()
        let result: Result
        do {
            result = try await body(handle)
        } catch {
            abandonTransaction(handle)
            throw error
        }
        try commitTransaction(handle)
        return result
    }
}
