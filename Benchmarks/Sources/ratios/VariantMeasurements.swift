/// What `ratios` measured for every variant, looked up by ``MeasuredVariant/name``.
struct VariantMeasurements {
    /// Per-operation time of every variant: the median across rounds, in nanoseconds.
    var nanoseconds: [String: TimingSummary] = [:]

    /// Heap allocations per operation of every variant (a mean, so possibly fractional when a
    /// conversion allocates only now and then, such as a cache filling up).
    var allocations: [String: Double] = [:]

    /// The median time of `name`, or a thrown error naming it: a section asking for a variant it
    /// did not declare is a bug in the section.
    func medianNanoseconds(_ name: String) throws -> Double {
        guard let summary = nanoseconds[name] else { throw MissingMeasurement(variant: name, kind: "timing") }
        return summary.median
    }

    /// The median across rounds of `numerator`'s time over `denominator`'s in the same round, and
    /// the interquartile spread of those ratios relative to it.
    ///
    /// For two variants that differ by a few percent, this is steadier than the ratio of their
    /// medians: the two run next to each other in every round (give them one
    /// ``MeasuredVariant/group`` in a plan that ``TimingPlan/keepsGroupsTogether``),
    /// so load that comes and goes over a run — other processes, the kernel writing back dirty
    /// pages — weighs on both sides of each ratio alike and divides out.
    func pairedRatio(_ numerator: String, _ denominator: String) throws -> (median: Double, relativeSpread: Double) {
        guard let top = nanoseconds[numerator] else { throw MissingMeasurement(variant: numerator, kind: "timing") }
        guard let bottom = nanoseconds[denominator] else {
            throw MissingMeasurement(variant: denominator, kind: "timing")
        }
        let ratios = zip(top.samples, bottom.samples).map { $0 / $1 }
        guard !ratios.isEmpty else { throw MissingMeasurement(variant: numerator, kind: "timing") }
        let median = TimingSummary.quantile(0.5, of: ratios)
        let spread = (TimingSummary.quantile(0.75, of: ratios) - TimingSummary.quantile(0.25, of: ratios)) / median
        return (median, spread)
    }

    func allocationsPerOperation(_ name: String) throws -> Double {
        guard let count = allocations[name] else { throw MissingMeasurement(variant: name, kind: "allocation count") }
        return count
    }
}

/// A section asked for a measurement of a variant that was not measured.
struct MissingMeasurement: Error, CustomStringConvertible {
    let variant: String
    let kind: String

    var description: String { "no \(kind) was measured for \(variant)" }
}
