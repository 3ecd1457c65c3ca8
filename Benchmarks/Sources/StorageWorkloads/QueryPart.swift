import BenchmarkModels

/// The two halves of the query's work after reading — filtering and sorting domain values — each
/// timed with Foundation's `Predicate`/`SortDescriptor` (what `BaseDao` is given) and by hand, on
/// values already in memory, so the cost of Foundation's query types shows on its own.
/// The raw value is the variant name.
public enum QueryPart: String, CaseIterable, Sendable {
    /// `filter(predicate.evaluate)` over all stored messages.
    case filterWithPredicate = "filter with Predicate"
    /// `filter` with the hand-written condition over all stored messages.
    case filterByHand = "filter by hand"
    /// `sort(using: [SortDescriptor])` of the messages the query selects, in the order the store gave them.
    case sortWithSortDescriptor = "sort with SortDescriptor"
    /// `sort(by:)` with the hand-written order, on the same input.
    case sortByHand = "sort by hand"

    /// The operation these parts belong to in workload names; they do not depend on the context.
    public static let operation = "dao.query"

    /// How many of `count` stored sample messages the query selects: how many values it sorts.
    public static func selectionSize(ofStored count: Int = SampleData.storedMessageCount) -> Int {
        SampleData.messages(count: count).lazy.filter(BenchmarkedQuery.matches).count
    }

    /// `dao.query <part>`.
    public var name: String { "\(Self.operation) \(rawValue)" }
}
