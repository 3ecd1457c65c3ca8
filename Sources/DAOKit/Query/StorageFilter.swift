/// A condition on an entity's stored fields: the filter part of a ``StorageQuery``.
///
/// Fields are named by their coding keys (``FieldPath``) and read as ``StorageValue``s, the way
/// ``EntityMapper`` sees them. Conditions mean what the equivalent Swift expression means on the
/// values the fields came from, never what a database's SQL would: a missing field is `nil`
/// (``StorageValue/null``), `nil == nil` holds and `nil != x` holds, an ordering comparison with
/// `nil` or between values Swift cannot order is false, strings compare by Unicode canonical
/// equivalence. A context that cannot evaluate part of a filter exactly must evaluate that part
/// in Swift (``StorageFilter/matches(_:)`` does), never approximate it.
public indirect enum StorageFilter: Sendable, Hashable {
    /// `field <op> value`.
    case compare(FieldPath, StorageComparison, StorageValue)
    /// The field equals one of the values (`values.contains(field)`).
    case isIn(FieldPath, [StorageValue])
    /// The field is a string that starts with the prefix (`field.starts(with: prefix)`,
    /// character by character).
    case hasPrefix(FieldPath, String)
    /// The field is a string that contains the other string (`field.contains(other)`).
    case contains(FieldPath, String)
    /// Every filter holds; true when empty.
    case and([StorageFilter])
    /// At least one filter holds; false when empty.
    case or([StorageFilter])
    /// The filter does not hold.
    case not(StorageFilter)

    /// The field is `nil` or missing.
    public static func isNull(_ field: FieldPath) -> StorageFilter { .compare(field, .equal, .null) }

    /// Every field path the filter reads, each once, in the order they first appear.
    public var fields: [FieldPath] {
        var seen: [FieldPath] = []
        collectFields(into: &seen)
        return seen
    }

    private func collectFields(into seen: inout [FieldPath]) {
        switch self {
        case .compare(let field, _, _), .isIn(let field, _), .hasPrefix(let field, _), .contains(let field, _):
            if !seen.contains(field) { seen.append(field) }
        case .and(let filters), .or(let filters):
            for filter in filters { filter.collectFields(into: &seen) }
        case .not(let filter):
            filter.collectFields(into: &seen)
        }
    }
}

/// How ``StorageFilter/compare(_:_:_:)`` compares a field with its value.
public enum StorageComparison: Sendable, Hashable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual

    /// The comparison with its operands swapped: `a < b` is `b > a`.
    public var swapped: StorageComparison {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        }
    }

    /// Whether `field <op> value` holds, with ``StorageFilter``'s meaning.
    public func holds(_ field: StorageValue, _ value: StorageValue) -> Bool {
        switch self {
        case .equal: return StorageValue.equal(field, value)
        case .notEqual: return !StorageValue.equal(field, value)
        default:
            // Ordering never involves nil: `Optional` is not `Comparable`, so no predicate asks.
            if field.isNull || value.isNull { return false }
            guard let order = StorageValue.compare(field, value) else { return false }
            switch self {
            case .less: return order == .orderedAscending
            case .lessOrEqual: return order != .orderedDescending
            case .greater: return order == .orderedDescending
            default: return order != .orderedAscending
            }
        }
    }
}
