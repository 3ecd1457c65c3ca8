/// The per-operation times one variant took across all rounds, summarized.
struct TimingSummary {
    /// The median: what ratios are computed from, because it ignores rounds disturbed by other
    /// processes (this machine is shared with builds) where a mean would not.
    let median: Double
    /// The interquartile range relative to the median, as a fraction: how much to trust `median`.
    let relativeSpread: Double

    /// Summarizes per-operation times in nanoseconds; `samples` must not be empty.
    init(samples: [Double]) {
        let sorted = samples.sorted()
        func quantile(_ fraction: Double) -> Double {
            let position = fraction * Double(sorted.count - 1)
            let lower = Int(position.rounded(.down))
            let upper = Int(position.rounded(.up))
            let weight = position - Double(lower)
            return sorted[lower] * (1 - weight) + sorted[upper] * weight
        }
        median = quantile(0.5)
        relativeSpread = median > 0 ? (quantile(0.75) - quantile(0.25)) / median : 0
    }
}
