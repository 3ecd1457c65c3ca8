import DAOKit

/// The promises every ``StorageContext`` makes, as checks a context author runs from their own
/// tests. DAOKit runs them against each context it ships.
///
/// ```swift
/// import DAOKitTesting
/// import Testing
///
/// @Test func sqliteContextKeepsTheContract() throws {
///     try StorageContextContract.verify(makeContext: { try SQLiteStorageContext(path: temporaryPath()) })
/// }
/// ```
///
/// `makeContext` is called once per check and must return an empty context; the checks save
/// entity types of their own (messages, notes, counters, tags; not API) through the context
/// and through `BaseDao`. The checks cover: reading back what was saved, replacing, deleting;
/// `create` of a stored id and `update` of a missing one; all-or-nothing batches; predicates,
/// multi-key sorting and paging through ``BaseDao`` (a negative limit or offset throws
/// `StorageError.Code.invalidQuery`); nested entities; awkward ids (`/`, `..`, `.`,
/// Unicode, NUL, empty, 500 characters, ids differing only in case); equal ids of two entity
/// types; UUID and Int ids; snapshot semantics; 8 concurrent writers × 100 persists.
///
/// Transactions and unique indexes have contracts of their own: ``TransactionalStorageContextContract``
/// and ``UniqueIndexContract``.
public enum StorageContextContract {
    /// Every check, in a stable order.
    public static let checks: [ContractCheck] =
        ContractChecks.basics + ContractChecks.queries + ContractChecks.identifiers + ContractChecks.isolation
        + ContractChecks.salvage

    /// The ids the contract stores, which break naive file names and store keys: `/`, `..`, `.`,
    /// the empty string, NUL, percent signs, Unicode, a 500-character id, ids differing only in
    /// case. Use them in a context's own tests of its naming scheme.
    public static var awkwardIDs: [String] { ContractChecks.awkwardIDList }

    /// Runs every check, each on a context from `makeContext`.
    /// - Throws: ``ContractViolation`` listing every check that failed.
    public static func verify(makeContext: () throws -> any StorageContext) throws {
        let failures = violations(makeContext: makeContext)
        if !failures.isEmpty { throw ContractViolation(failures: failures) }
    }

    /// Runs every check, each on a context from `makeContext`, and returns the failures; empty
    /// when the context keeps the contract.
    public static func violations(makeContext: () throws -> any StorageContext) -> [ContractViolation.Failure] {
        ContractCheck.violations(of: checks, makeContext: makeContext)
    }
}

/// Namespace for the check lists, one extension per group of promises.
enum ContractChecks {}
