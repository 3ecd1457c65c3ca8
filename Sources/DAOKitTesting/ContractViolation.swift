/// The error the storage-context contract throws when a context breaks one of its promises.
///
/// It lists every failed check, with what was expected and what happened, so one run shows all
/// that is wrong:
///
/// ```
/// 2 storage-context contract checks failed:
/// - awkwardStringIDsReadBack (ContractChecks+Identifiers.swift:31): id "a/b": expected ...
/// - concurrentWritersLoseNothing (ContractChecks+Isolation.swift:88): count: expected 800, got 797
/// ```
public struct ContractViolation: Error, CustomStringConvertible, Sendable {
    /// One failed expectation of one check.
    public struct Failure: CustomStringConvertible, Sendable {
        /// The ``ContractCheck/name`` of the check that failed.
        public let check: String
        /// What was expected and what happened instead.
        public let message: String
        /// Where in DAOKitTesting's source the failed expectation is, as `File.swift:line`, so you
        /// can read exactly what the check does.
        public let location: String

        /// `<check> (<location>): <message>`.
        public var description: String {
            "\(check) (\(location)): \(message)"
        }
    }

    /// Every failure, in the order the checks ran.
    public let failures: [Failure]

    /// A summary line followed by one line per failure.
    public var description: String {
        let noun = failures.count == 1 ? "check" : "checks"
        return (["\(failures.count) storage-context contract \(noun) failed:"] + failures.map { "- \($0)" })
            .joined(separator: "\n")
    }
}

/// Thrown by the expectation helpers inside a check, and turned into a ``ContractViolation`` that
/// names the check by ``ContractCheck/run(makeContext:)``.
struct ExpectationFailure: Error {
    let message: String
    let location: String
}
