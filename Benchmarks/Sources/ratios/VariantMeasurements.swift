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
