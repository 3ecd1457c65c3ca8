/// Throws a ``StorageMismatch`` naming `workload` unless `actual == expected`.
///
/// Shared by the verifications of both workload sets. A mismatch shows the two values, shortened
/// for arrays: ten thousand messages are too many to print, their count and first one say enough.
func expectEqual<Value: Equatable>(_ workload: String, _ actual: Value, _ expected: Value) throws {
    guard actual == expected else {
        throw StorageMismatch(
            workload: workload, reason: "expected \(summary(of: expected)), got \(summary(of: actual))")
    }
}

private func summary<Value>(of value: Value) -> String {
    if let array = value as? [Any] {
        return "\(array.count) values" + (array.first.map { ", the first \($0)" } ?? "")
    }
    return String(describing: value)
}
