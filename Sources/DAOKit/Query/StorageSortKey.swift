import Foundation

/// One key of a ``StorageQuery``'s sort: a field and a direction.
///
/// Values are ordered as ``StorageValue/compare(_:_:)`` orders them (`nil` first when ascending),
/// or, for strings with a ``stringComparator``, as that comparator orders them — the ordering a
/// `SortDescriptor` with the same comparator uses.
public struct StorageSortKey: Sendable, Hashable {
    /// The field sorted by.
    public var field: FieldPath
    /// Ascending (`.forward`) or descending (`.reverse`).
    public var order: SortOrder
    /// How strings are compared; `nil` for Swift's `<` on `String`.
    public var stringComparator: String.StandardComparator?

    /// A sort key on `field`.
    public init(_ field: FieldPath, order: SortOrder = .forward, stringComparator: String.StandardComparator? = nil) {
        self.field = field
        self.order = order
        self.stringComparator = stringComparator
    }

    /// How two values of the field are ordered by this key (direction applied).
    public func compare(_ lhs: StorageValue, _ rhs: StorageValue) -> ComparisonResult {
        var result: ComparisonResult
        if let stringComparator, case let .string(a) = lhs, case let .string(b) = rhs {
            result = stringComparator.compare(a, b)
        } else {
            result = StorageValue.compare(lhs, rhs) ?? .orderedSame
        }
        if order == .reverse {
            switch result {
            case .orderedAscending: result = .orderedDescending
            case .orderedDescending: result = .orderedAscending
            case .orderedSame: break
            }
        }
        return result
    }
}
