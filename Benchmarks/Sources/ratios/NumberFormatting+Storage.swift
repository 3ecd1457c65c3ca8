import Foundation

/// Formats for the storage sections, whose numbers span far wider ranges than mapping's.
extension NumberFormatting {
    /// A duration given in nanoseconds, in the unit that keeps it short: `850 ns`, `2.41 µs`,
    /// `26.3 ms`, `1.20 s`. Storage operations range from a microsecond (one record in memory) to a
    /// second (ten thousand files), which no single unit shows readably.
    static func duration(_ nanoseconds: Double) -> String {
        let (value, unit): (Double, String) =
            switch nanoseconds {
            case ..<1_000: (nanoseconds, "ns")
            case ..<1_000_000: (nanoseconds / 1e3, "µs")
            case ..<1_000_000_000: (nanoseconds / 1e6, "ms")
            default: (nanoseconds / 1e9, "s")
            }
        return "\(ratio(value)) \(unit)"
    }

    /// Allocations per operation of operations that allocate thousands of times (one per record or
    /// more): whole numbers, since fractions of one allocation say nothing at that scale.
    static func manyAllocations(_ value: Double) -> String {
        value >= 100 ? String(Int(value.rounded())) : allocations(value)
    }
}
