import Foundation

/// A sort key of a domain type that generated queries may sort by, in either direction.
struct QuerySort<Domain> {
    /// How the descriptor is written, without its order: `\.score`, `\.name (localizedStandard)`.
    let name: String
    /// The descriptor in the given order.
    let descriptor: (SortOrder) -> SortDescriptor<Domain>

    /// A sort by a `Comparable` property.
    static func by<V: Comparable>(_ name: String, _ keyPath: KeyPath<Domain, V> & Sendable) -> QuerySort {
        QuerySort(name: "\\.\(name)") { SortDescriptor(keyPath, order: $0) }
    }

    /// A sort by an optional `Comparable` property (`nil` first when ascending).
    static func by<V: Comparable>(_ name: String, _ keyPath: KeyPath<Domain, V?> & Sendable) -> QuerySort {
        QuerySort(name: "\\.\(name)") { SortDescriptor(keyPath, order: $0) }
    }

    /// A sort by a `String` property with one of Foundation's string comparators.
    static func by(
        _ name: String, _ keyPath: KeyPath<Domain, String> & Sendable,
        comparator: String.StandardComparator, comparatorName: String
    ) -> QuerySort {
        QuerySort(name: "\\.\(name) (\(comparatorName))") { SortDescriptor(keyPath, comparator: comparator, order: $0) }
    }
}
