/// A conversion that did not produce what the hand-written translator produces, or that threw.
///
/// Its description names the workload and shows both values, so a failing benchmark run says what
/// to fix instead of reporting numbers for a broken conversion.
public struct MappingMismatch: Error, CustomStringConvertible {
    /// The workload's name, such as `Message.p2e mapper`.
    public let workload: String
    /// What went wrong, with the expected and the actual value or the error thrown.
    public let reason: String

    public var description: String { "\(workload) is wrong: \(reason)" }
}
