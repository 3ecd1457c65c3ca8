import Foundation

/// One entity in an in-memory index: the values of the index's fields and the record, ordered
/// field by field (``IndexOrder``) and then by the record's order, which no two records share,
/// so that no two entries are equal.
struct IndexEntry: Comparable {
    let values: [StorageValue]
    let record: InMemoryRecord

    static func < (lhs: IndexEntry, rhs: IndexEntry) -> Bool {
        for position in lhs.values.indices {
            switch IndexOrder.compare(lhs.values[position], rhs.values[position]) {
            case .orderedAscending: return true
            case .orderedDescending: return false
            case .orderedSame: continue
            }
        }
        return lhs.record.order < rhs.record.order
    }

    static func == (lhs: IndexEntry, rhs: IndexEntry) -> Bool {
        lhs.record === rhs.record
    }
}

/// The total order indexes keep values in. Where ``StorageValue/compare(_:_:)`` orders two
/// values, it agrees with it (so `nil` comes first, and walking an index in order is sorting by
/// a ``StorageSortKey`` without a string comparator); values it cannot order get an order anyway —
/// by kind, `false` before `true`, `Data` and `URL` by bytes and text, `Double.nan` after every
/// other number — because an index needs one. Queries never rely on that part: every entry an
/// index walk yields is checked against the whole filter.
enum IndexOrder {
    static func compare(_ lhs: StorageValue, _ rhs: StorageValue) -> ComparisonResult {
        // The kinds indexes hold most, first.
        switch (lhs, rhs) {
        case let (.int(a), .int(b)): return a < b ? .orderedAscending : (a == b ? .orderedSame : .orderedDescending)
        case let (.date(a), .date(b)) where a == b: return .orderedSame
        case let (.date(a), .date(b)): return a < b ? .orderedAscending : .orderedDescending
        case let (.bool(a), .bool(b)): return a == b ? .orderedSame : (a ? .orderedDescending : .orderedAscending)
        default: break
        }
        if let order = StorageValue.compare(lhs, rhs) { return order }
        switch (lhs, rhs) {
        case let (.url(a), .url(b)): return order(a.absoluteString, b.absoluteString)
        case let (.data(a), .data(b)):
            return a.lexicographicallyPrecedes(b) ? .orderedAscending : (b.lexicographicallyPrecedes(a) ? .orderedDescending : .orderedSame)
        default:
            let (left, right) = (nanAware(lhs), nanAware(rhs))
            if left != right { return left < right ? .orderedAscending : .orderedDescending }
            return .orderedSame  // NaN and NaN, or kinds of one rank that never meet in one field
        }
    }

    /// The rank of a value's kind; NaN ranks just after the numbers.
    private static func nanAware(_ value: StorageValue) -> Double {
        if case let .double(d) = value, d.isNaN { return Double(value.kind) + 0.5 }
        switch value {
        case .int, .uint, .double: return 3  // numbers compare with each other; one rank
        default: return Double(value.kind)
        }
    }

    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult {
        a < b ? .orderedAscending : (b < a ? .orderedDescending : .orderedSame)
    }
}
