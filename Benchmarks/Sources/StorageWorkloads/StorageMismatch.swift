/// A storage workload that did not produce what the hand-written code produces, or that threw.
///
/// Its description names the workload and what differs, so a failing run says what to fix instead
/// of reporting numbers for broken code.
public struct StorageMismatch: Error, CustomStringConvertible {
    /// The workload's name, such as `dao.memory.query dao`.
    public let workload: String
    /// What went wrong.
    public let reason: String

    public var description: String { "\(workload) is wrong: \(reason)" }
}
