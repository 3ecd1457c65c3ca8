import Foundation

/// One key of a ``StorageQuery``'s sort: a field and a direction.
///
/// Values are ordered as ``StorageValue/compare(_:_:)`` orders them (`nil` first when ascending),
/// or, for strings with a ``stringComparator``, as that comparator orders them — the ordering a
/// `SortDescriptor` with the same comparator uses. `Double.nan` (which `<` leaves unordered)
/// sorts after every other number when ascending and before them when descending, a NaN date
/// likewise among dates, and NaNs tie with each other: the same rule as indexes, SQL and
/// ``DomainQuery`` (see "Query semantics"), so that a sort is a total order.
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
        if let stringComparator, case .string(let a) = lhs, case .string(let b) = rhs {
            result = stringComparator.compare(a, b)
        } else {
            result = StorageValue.compare(lhs, rhs) ?? Self.nanOrder(lhs, rhs) ?? .orderedSame
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

    /// How a NaN number or date orders against a value of its family (numbers, dates): after
    /// every other one, tied with another NaN; `nil` when neither is NaN or the families differ.
    static func nanOrder(_ lhs: StorageValue, _ rhs: StorageValue) -> ComparisonResult? {
        guard let left = nanRank(lhs), let right = nanRank(rhs), left.family == right.family, left.isNaN || right.isNaN
        else {
            return nil
        }
        if left.isNaN && right.isNaN { return .orderedSame }
        return left.isNaN ? .orderedDescending : .orderedAscending
    }

    private static func nanRank(_ value: StorageValue) -> (family: Int, isNaN: Bool)? {
        switch value {
        case .double(let number): return (0, number.isNaN)
        case .int, .uint: return (0, false)
        case .date(let date): return (1, date.timeIntervalSinceReferenceDate.isNaN)
        default: return nil
        }
    }
}
