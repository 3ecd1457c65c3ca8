/// How a section's variants are timed.
///
/// The total is predictable whatever the code's speed: variants × rounds × batch duration (plus a
/// short calibration), because a batch is sized in time, not in iterations.
struct TimingPlan {
    /// How many times every variant is timed; the median is taken across them.
    var rounds: Int
    /// How long one batch of iterations of one variant should take, on ``clock``.
    var batchDuration: Duration
    /// What is measured: CPU time for pure computation, wall-clock time when waiting counts.
    var clock: TimingClock
    /// Whether variants of one ``MeasuredVariant/group`` (listed next to each other) run one right
    /// after the other in every round, which of them goes first rotating between rounds, so that
    /// their ratios can be taken round by round (``VariantMeasurements/pairedRatio(_:_:)``).
    var keepsGroupsTogether = false

    /// The time `variantCount` variants take to measure, calibration excluded (on a busy machine,
    /// CPU-time batches take longer than this in wall-clock time).
    func estimatedDuration(variantCount: Int) -> Duration {
        batchDuration * (rounds * variantCount)
    }
}
