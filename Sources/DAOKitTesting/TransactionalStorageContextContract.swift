import DAOKit

/// The promises every ``TransactionalStorageContext`` makes, as checks a context author runs
/// from their own tests, beside ``StorageContextContract``. DAOKit runs them against each
/// transactional context it ships.
///
/// ```swift
/// @Test(arguments: TransactionalStorageContextContract.checks)
/// func transactionsKeepTheContract(_ check: ContractCheck) throws {
///     try check.run(makeContext: { try MyContext(path: temporaryPath()) })
/// }
/// ```
///
/// `makeContext` is called once per check and must return an empty context that conforms to
/// ``TransactionalStorageContext`` (a check given another context fails saying so). The checks
/// write a task and its comment (two entity types of their own, not API) through
/// ``BaseDao``s made on the handle, and cover: both types commit together; an error in the body
/// leaves neither (a failing call inside too) and is rethrown; reads inside see the
/// transaction's writes, queries and counts included; a reader on another thread sees none of
/// them until the commit; a nested transaction is a savepoint; a handle used after its body
/// returned throws ``StorageError/Kind/transactionClosed``; observers hear of a commit once,
/// with both types, and never of a rollback; and two threads incrementing one counter 200 times
/// each through read-modify-write transactions, running one again when it throws
/// ``StorageError/Kind/transactionConflict(_:)``, lose no increment.
public enum TransactionalStorageContextContract {
    /// Every check, in a stable order.
    public static let checks: [ContractCheck] = ContractChecks.transactions

    /// Runs every check, each on a context from `makeContext`.
    /// - Throws: ``ContractViolation`` listing every check that failed.
    public static func verify(makeContext: () throws -> any TransactionalStorageContext) throws {
        let failures = violations(makeContext: makeContext)
        if !failures.isEmpty { throw ContractViolation(failures: failures) }
    }

    /// Runs every check, each on a context from `makeContext`, and returns the failures; empty
    /// when the context keeps the contract.
    public static func violations(
        makeContext: () throws -> any TransactionalStorageContext
    ) -> [ContractViolation.Failure] {
        ContractCheck.violations(of: checks, makeContext: { try makeContext() })
    }
}
