import DAOKit

/// The promises a context makes for unique indexes (``StorageIndex/isUnique``), as checks a
/// context author runs from their own tests, beside ``StorageContextContract``. DAOKit runs them
/// against each context it ships.
///
/// ```swift
/// @Test(arguments: UniqueIndexContract.checks)
/// func uniqueIndexesKeepTheContract(_ check: ContractCheck) throws {
///     try check.run(makeContext: { try MyContext(path: temporaryPath()) })
/// }
/// ```
///
/// `makeContext` is called once per check and must return an empty context. The checks store
/// accounts (an entity type of their own, not API) with a unique index on an e-mail address that
/// may be `nil` and one on a region and a handle together, through ``BaseDao``, and cover:
/// `create`, `persist` and `update` of a second record with a stored record's values fail with
/// ``StorageError/Code/uniqueViolation`` naming the entity, the refused record's key and the
/// holder's (``StorageError/uniqueIndexViolation``), and change nothing; a record saved again
/// with its own values is no violation; `nil` values never collide; a batch is refused whole,
/// also for two of its own records with equal values; a value freed by an erase or an update can
/// be taken again; records of one batch may swap their values; a unique index on two fields
/// refuses only records equal in both; 8 threads creating records with one value at once leave
/// exactly one.
///
/// ``transactionChecks`` add, for a ``TransactionalStorageContext``: a transaction in which a
/// write breaks a unique index keeps nothing, and one that frees a value and takes it again
/// commits.
public enum UniqueIndexContract {
    /// Every check for any context, in a stable order.
    public static let checks: [ContractCheck] = ContractChecks.uniqueIndexes

    /// The checks of unique indexes inside transactions, for a ``TransactionalStorageContext``
    /// (a check given another context fails saying so).
    public static let transactionChecks: [ContractCheck] = ContractChecks.uniqueIndexTransactions

    /// Runs every check of ``checks`` (and of ``transactionChecks`` when the context is a
    /// ``TransactionalStorageContext``), each on a context from `makeContext`.
    /// - Throws: ``ContractViolation`` listing every check that failed.
    public static func verify(makeContext: () throws -> any StorageContext) throws {
        let failures = violations(makeContext: makeContext)
        if !failures.isEmpty { throw ContractViolation(failures: failures) }
    }

    /// Runs every check of ``checks`` (and of ``transactionChecks`` when the first context made is
    /// a ``TransactionalStorageContext``), each on a context from `makeContext`, and returns the
    /// failures; empty when the context keeps the contract.
    public static func violations(makeContext: () throws -> any StorageContext) -> [ContractViolation.Failure] {
        var all = checks
        if let made = try? makeContext(), made is any TransactionalStorageContext { all += transactionChecks }
        return ContractCheck.violations(of: all, makeContext: makeContext)
    }
}
