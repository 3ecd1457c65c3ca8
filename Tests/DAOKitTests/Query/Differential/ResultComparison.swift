import Foundation

/// Compares a query's result with the full scan's, element for element, where the order of values
/// the sort leaves tied is unspecified (the context chooses it, so it may differ from the scan's).
///
/// The expected list is cut into runs of values the sort descriptors consider equal (one run when
/// there is no sort); the actual list must have runs of the same lengths at the same positions,
/// each holding equal values in any order. With a total sort every run is one value, and the
/// comparison is positional.
enum ResultComparison {
    /// `nil` when `actual` is `expected` up to the order within tied runs; otherwise what differs.
    static func difference<Domain: Equatable>(
        expected: [Domain], actual: [Domain], sortedBy descriptors: [SortDescriptor<Domain>]
    ) -> String? {
        if expected.count != actual.count {
            return "\(actual.count) values, expected \(expected.count)"
        }
        var start = 0
        while start < expected.count {
            var end = start + 1
            while end < expected.count && ties(expected[start], expected[end], descriptors) { end += 1 }
            var unmatched = Array(actual[start..<end])
            for value in expected[start..<end] {
                guard let position = unmatched.firstIndex(of: value) else {
                    return "positions \(start)..<\(end): expected \(value) among \(Array(actual[start..<end]))"
                }
                unmatched.remove(at: position)
            }
            start = end
        }
        return nil
    }

    /// Whether the descriptors order `lhs` and `rhs` the same.
    private static func ties<Domain>(_ lhs: Domain, _ rhs: Domain, _ descriptors: [SortDescriptor<Domain>]) -> Bool {
        if descriptors.isEmpty { return true }
        return descriptors.allSatisfy { $0.compare(lhs, rhs) == .orderedSame }
    }
}
