/// The models the mapping benchmarks convert; the raw value is the name printed in reports.
public enum BenchmarkedModel: String, CaseIterable, Sendable {
    /// One flat ten-field ``BenchmarkModels/Message``.
    case message = "Message"
    /// One ``BenchmarkModels/Dialog`` holding twenty messages.
    case dialog = "Dialog"
}
