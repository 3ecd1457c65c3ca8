import Foundation

/// A query over domain values held in memory: filter, sort, page. ``BaseDao`` uses it for
/// `read(where:sortedBy:limit:offset:)`; subclasses can run it on values they already have.
public struct DomainQuery<Domain> {
    /// Values for which it returns `false` are left out; `nil` keeps every value.
    public var predicate: Predicate<Domain>?
    /// Applied in order: the first descriptor decides, later ones break its ties.
    public var sortedBy: [SortDescriptor<Domain>]
    /// At most this many values are returned; `nil` for no limit.
    public var limit: Int?
    /// This many values are skipped, after filtering and sorting.
    public var offset: Int

    /// Creates a query. Any values are accepted; ``apply(to:)`` refuses a negative `limit` or
    /// `offset`, however it was set.
    public init(
        predicate: Predicate<Domain>? = nil,
        sortedBy: [SortDescriptor<Domain>] = [],
        limit: Int? = nil,
        offset: Int = 0
    ) {
        self.predicate = predicate
        self.sortedBy = sortedBy
        self.limit = limit
        self.offset = offset
    }

    /// The values of `values` that match, sorted and paged. The sort is stable: values the
    /// descriptors consider equal keep their order in `values`. Each descriptor compares as
    /// Foundation's `SortDescriptor.compare(_:_:)` does, except that a NaN `Double`, `Float` or
    /// `Date` (which `<` leaves unordered, so no sort would be a total order) sorts after every
    /// other value of its type when the descriptor's `order` is `.forward` and before them when
    /// it is `.reverse`, tied with other NaNs: the rule every context applies (see "Query
    /// semantics").
    /// - Throws: ``StorageError`` of code ``StorageError/Code/invalidQuery`` for a negative
    ///   `limit` or `offset` (before evaluating anything); an error thrown while evaluating the
    ///   predicate.
    public func apply(to values: [Domain]) throws -> [Domain] {
        try StorageQuery.validatePage(limit: limit, offset: offset, entityName: nil)
        var result = values
        if let predicate {
            result = try result.filter(predicate.evaluate)
        }
        if !sortedBy.isEmpty {
            let descriptors = sortedBy
            let values = result
            let directions = NaNDirections(count: descriptors.count)
            result.sort { lhs, rhs in
                Self.precedes(lhs, rhs, by: descriptors) { index in
                    directions.reversed(index) { Self.sortsReversed(descriptors[index], values) }
                }
            }
        }
        if offset == 0 && limit == nil { return result }
        let start = min(offset, result.count)
        let end = limit.map { start + min($0, result.count - start) } ?? result.count
        return Array(result[start..<end])
    }

    /// Whether `lhs` sorts strictly before `rhs`: the first descriptor that orders them decides,
    /// with NaN placed by the rule of ``apply(to:)``.
    /// `reversed(i)` says whether descriptor `i` sorts in descending order.
    static func precedes(
        _ lhs: Domain, _ rhs: Domain, by descriptors: [SortDescriptor<Domain>], reversed: (Int) -> Bool
    ) -> Bool {
        for (index, descriptor) in descriptors.enumerated() {
            var order = descriptor.compare(lhs, rhs)
            if order == .orderedSame, let keyPath = descriptor.keyPath {
                order = nanOrder(lhs[keyPath: keyPath], rhs[keyPath: keyPath], reverse: { reversed(index) })
            }
            if order != .orderedSame { return order == .orderedAscending }
        }
        return false
    }

    /// NaN after every other value of its type (before them for `reverse`), NaNs tied;
    /// `.orderedSame` for values that are neither NaN nor of a floating-point or date type.
    private static func nanOrder(_ lhs: Any, _ rhs: Any, reverse: () -> Bool) -> ComparisonResult {
        guard let left = nanState(lhs), let right = nanState(rhs), left.family == right.family,
            left.isNaN != right.isNaN
        else {
            return .orderedSame
        }
        return left.isNaN != reverse() ? .orderedDescending : .orderedAscending
    }

    /// Whether `descriptor` sorts in descending order, as its `compare(_:_:)` does on two values
    /// of `values` with distinct non-NaN keys — which is not always what `order` says: Foundation
    /// keeps the direction a `Comparable` or string-comparator descriptor was made with when
    /// `order` is set later. `order` when no two such values exist.
    static func sortsReversed(_ descriptor: SortDescriptor<Domain>, _ values: [Domain]) -> Bool {
        guard let keyPath = descriptor.keyPath else { return descriptor.order == .reverse }
        var first: (value: Domain, key: Double)?
        for value in values {
            guard let key = orderedKey(value[keyPath: keyPath]) else { continue }
            guard let (firstValue, firstKey) = first else {
                first = (value, key)
                continue
            }
            if key == firstKey { continue }
            let said = descriptor.compare(firstValue, value)
            if said == .orderedSame { break }
            return (said == .orderedAscending) != (firstKey < key)
        }
        return descriptor.order == .reverse
    }

    /// A floating-point number or a date as a `Double`, when it is not NaN.
    private static func orderedKey(_ value: Any) -> Double? {
        func double<T: BinaryFloatingPoint>(_ number: T) -> Double { Double(number) }
        if let number = value as? any BinaryFloatingPoint, !number.isNaN { return double(number) }
        if let date = value as? Date, !date.timeIntervalSinceReferenceDate.isNaN {
            return date.timeIntervalSinceReferenceDate
        }
        return nil
    }

    private static func nanState(_ value: Any) -> (family: Int, isNaN: Bool)? {
        if let number = value as? any BinaryFloatingPoint { return (0, number.isNaN) }
        if let date = value as? Date { return (1, date.timeIntervalSinceReferenceDate.isNaN) }
        return nil
    }
}

/// Each descriptor's direction for NaN placement, found on first need (most sorts meet no NaN).
private final class NaNDirections {
    private var known: [Bool?]

    init(count: Int) {
        known = Array(repeating: nil, count: count)
    }

    func reversed(_ index: Int, _ find: () -> Bool) -> Bool {
        if let direction = known[index] { return direction }
        let direction = find()
        known[index] = direction
        return direction
    }
}
