import DAOKit

/// The promises a ``VersionedStorageContext`` makes for entity versions (``EntitySchema``), as
/// checks a context author runs from their own tests, beside ``StorageContextContract`` and
/// ``VersionedRecordDifferential`` (which checks its queries). DAOKit runs them against each
/// context it ships that keeps encoded records.
///
/// ```swift
/// @Test(arguments: VersionedStorageContextContract.checks)
/// func versionsKeepTheContract(_ check: ContractCheck) throws {
///     try check.run(makeContext: { try MyContext(path: temporaryPath()) })
/// }
/// ```
///
/// `makeContext` is called once per check and must return an empty context that conforms to
/// ``VersionedStorageContext`` (a check given another fails saying so). The checks store three
/// releases of a ticket, a ticket whose second release has a migration step, and a note whose
/// second release removes a field (entity types of their own, not API), and cover: records of
/// versions 1 and 2 read as version 3, one by one and all together; a record a newer version
/// wrote fails to read with ``StorageError/Kind/newerVersion(_:)`` beside the others, and a save
/// of a batch over it fails whole, naming it, in both save modes, while deleting it is allowed;
/// a save by the release that removed a field keeps the stored value, so that the first release
/// reads it after a rollback; ``BaseDao/migrate(progress:)-4r1a4`` rewrites exactly the older
/// records, reporting its progress, reads them as before, and does nothing the second time;
/// a record its migration step fails makes `migrate()` write nothing and name it, while lazy
/// reads spare the others; and `migrate()` keeps removed fields too.
public enum VersionedStorageContextContract {
    /// Every check, in a stable order.
    public static let checks: [ContractCheck] = ContractChecks.versions

    /// Runs every check, each on a context from `makeContext`.
    /// - Throws: ``ContractViolation`` listing every check that failed.
    public static func verify(makeContext: () throws -> any VersionedStorageContext) throws {
        let failures = violations(makeContext: makeContext)
        if !failures.isEmpty { throw ContractViolation(failures: failures) }
    }

    /// Runs every check, each on a context from `makeContext`, and returns the failures; empty
    /// when the context keeps the contract.
    public static func violations(
        makeContext: () throws -> any VersionedStorageContext
    ) -> [ContractViolation.Failure] {
        ContractCheck.violations(of: checks, makeContext: { try makeContext() })
    }
}
