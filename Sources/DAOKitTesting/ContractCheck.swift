import DAOKit

/// One promise of ``StorageContext``, checked against a fresh context.
///
/// Run one check per test to see each promise as its own test case:
///
/// ```swift
/// @Test(arguments: StorageContextContract.checks)
/// func sqliteContextKeepsTheContract(_ check: ContractCheck) throws {
///     try check.run(makeContext: { try SQLiteStorageContext(path: temporaryPath()) })
/// }
/// ```
public struct ContractCheck: Sendable, CustomStringConvertible {
    /// The property checked, as a camel-case sentence such as `concurrentWritersLoseNothing`.
    public let name: String
    let body: @Sendable (any StorageContext) throws -> Void

    init(_ name: String, _ body: @escaping @Sendable (any StorageContext) throws -> Void) {
        self.name = name
        self.body = body
    }

    /// The ``name``.
    public var description: String { name }

    /// Creates a context with `makeContext` (which must return an empty one) and checks it.
    /// - Throws: ``ContractViolation`` with one failure saying what was expected and what
    ///   happened: a failed expectation, an unexpected error, or `makeContext` failing.
    public func run(makeContext: () throws -> any StorageContext) throws {
        let context: any StorageContext
        do {
            context = try makeContext()
        } catch {
            throw violation("could not create the context: \(error)", at: "makeContext")
        }
        do {
            try body(context)
        } catch let failure as ExpectationFailure {
            throw violation(failure.message, at: failure.location)
        } catch {
            throw violation("unexpected error: \(error)", at: "\(name)")
        }
    }

    /// Runs each of `checks` on a context from `makeContext` and returns every failure.
    static func violations(
        of checks: [ContractCheck], makeContext: () throws -> any StorageContext
    ) -> [ContractViolation.Failure] {
        checks.flatMap { check -> [ContractViolation.Failure] in
            do {
                try check.run(makeContext: makeContext)
                return []
            } catch let violation as ContractViolation {
                return violation.failures
            } catch {
                // `run` throws nothing else; keep the failure rather than trap if that ever changes.
                return [.init(check: check.name, message: "unexpected error: \(error)", location: check.name)]
            }
        }
    }

    private func violation(_ message: String, at location: String) -> ContractViolation {
        ContractViolation(failures: [.init(check: name, message: message, location: location)])
    }
}
