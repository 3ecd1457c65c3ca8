/// The per-operation times one variant took across all rounds, summarized.
struct TimingSummary {
    /// The median: what ratios are computed from, because it ignores rounds disturbed by other
    /// processes (this machine is shared with builds) where a mean would not.
    let median: Double
    /// The interquartile range relative to the median, as a fraction: how much to trust `median`.
    let relativeSpread: Double

    /// The per-operation time of every round, in round order: for ratios of rounds taken side by
    /// side (``VariantMeasurements/pairedRatio(_:_:)``).
    let samples: [Double]

    /// Summarizes per-operation times in nanoseconds, one per round in order; `samples` must not
    /// be empty.
    init(samples: [Double]) {
        self.samples = samples
        median = Self.quantile(0.5, of: samples)
        relativeSpread = median > 0 ? (Self.quantile(0.75, of: samples) - Self.quantile(0.25, of: samples)) / median : 0
    }

    /// The `fraction` quantile of `values` (not empty), interpolated between neighbours.
    static func quantile(_ fraction: Double, of values: [Double]) -> Double {
        let sorted = values.sorted()
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = Int(position.rounded(.up))
        let weight = position - Double(lower)
        return sorted[lower] * (1 - weight) + sorted[upper] * weight
    }
}
