import Foundation

/// Which part of which index a query needs: a range of entries bounded on the index's leading
/// field (and, when that is fixed by an equality, on the next one), and whether walking the range
/// yields the query's sort order.
///
/// The range is a superset — every entry the walk yields is checked against the whole filter
/// unless the plan ``guarantees(_:in:)`` a condition — so bounds only need to be loose enough to
/// keep every match: a bound on `nil`, an `||` simply does not narrow the range.
///
/// A `!=` or a `!(==)` on the field after those the range holds to one value (the leading field,
/// or the next one) cuts the entries holding that value out of the range: the walk is then two
/// ranges, the complement of the value's, in index order. Exact when the index's equality is
/// Swift's for the value (``StorageValue/indexEqualityIsExact``): every entry left, `nil` and
/// values of another kind included, is one for which `!=` holds, as in the full scan.
struct IndexPlan {
    /// The index, by position in the layout.
    let index: Int
    /// Bounds on the index's first and second field (inclusive; `nil` for open).
    private var lower: [StorageValue?]
    private var upper: [StorageValue?]
    /// Whether the walk is in the query's order (ascending, or descending when ``reversed``).
    private(set) var yieldsSortOrder = false
    private(set) var reversed = false
    /// The values of the fields the range holds to one value, then the value the walk skips on
    /// the next field: the entries that hold all of them are cut out of the range.
    private(set) var excluded: [StorageValue?]?

    /// The most selective plan for `query`, or `nil` when no index narrows it or orders it.
    static func best(for query: StorageQuery, conjuncts: [StorageFilter], layout: IndexLayout) -> IndexPlan? {
        var best: (plan: IndexPlan, score: Int)?
        for (position, index) in layout.indexes.enumerated() {
            var plan = IndexPlan(index: position, lower: [nil, nil], upper: [nil, nil])
            var score = 0
            let leadingFixed = plan.narrow(field: 0, of: index, by: conjuncts)
            if leadingFixed { score += 4 } else if plan.lower[0] != nil || plan.upper[0] != nil { score += 2 }
            let secondFixed = leadingFixed && index.fields.count > 1 && plan.narrow(field: 1, of: index, by: conjuncts)
            if secondFixed { score += 2 }
            // A `!=` on the first field not held to one value: the walk skips the value's entries.
            let free = secondFixed ? 2 : (leadingFixed ? 1 : 0)
            if free < index.fields.count, let value = excludedValue(index.fields[free], in: conjuncts) {
                plan.excluded = (0..<free).map { plan.lower[$0] } + [value]
                if !leadingFixed && plan.lower[0] == nil && plan.upper[0] == nil { score += 2 }
            }
            // The order of a walk: by the fields after those fixed by equalities.
            let ordered = leadingFixed ? 1 : 0
            if query.sort.count == 1, ordered < index.fields.count,
                query.sort[0].field == index.fields[ordered], query.sort[0].stringComparator == nil
            {
                plan.yieldsSortOrder = true
                plan.reversed = query.sort[0].order == .reverse
                score += 1
            } else if query.sort.isEmpty {
                plan.yieldsSortOrder = true  // any order will do
            }
            guard score > 0 else { continue }
            if best == nil || score > best!.score { best = (plan, score) }
        }
        return best?.plan
    }

    /// The value a conjunct says `field` is not (`field != v`, `!(field == v)`), when the index's
    /// equality is Swift's for it.
    private static func excludedValue(_ field: FieldPath, in conjuncts: [StorageFilter]) -> StorageValue? {
        for conjunct in conjuncts {
            if let value = Self.exclusion(conjunct, on: field) { return value }
        }
        return nil
    }

    /// The value `conjunct` excludes from `field`, if it is a `!=` or a `!(==)` on it with a value
    /// the index's equality is exact for.
    private static func exclusion(_ conjunct: StorageFilter, on field: FieldPath) -> StorageValue? {
        switch conjunct {
        case .compare(let path, .notEqual, let value) where path == field && value.indexEqualityIsExact,
            .not(.compare(let path, .equal, let value)) where path == field && value.indexEqualityIsExact:
            return value
        default:
            return nil
        }
    }

    /// Narrows field `field` of `index` by the conjuncts that bound it; `true` when one fixes it
    /// with an equality.
    private mutating func narrow(field: Int, of index: StorageIndex, by conjuncts: [StorageFilter]) -> Bool {
        guard field < index.fields.count else { return false }
        let path = index.fields[field]
        var fixed = false
        for case .compare(let conjunctField, let comparison, let value) in conjuncts where conjunctField == path {
            switch comparison {
            case .equal:
                tighten(field, lower: value, upper: value)
                fixed = true
            case .less, .lessOrEqual:
                if !value.isNull { tighten(field, lower: nil, upper: value) }
            case .greater, .greaterOrEqual:
                if !value.isNull { tighten(field, lower: value, upper: nil) }
            case .notEqual:
                break
            }
        }
        return fixed
    }

    private mutating func tighten(_ field: Int, lower newLower: StorageValue?, upper newUpper: StorageValue?) {
        if let newLower, lower[field].map({ IndexOrder.compare(newLower, $0) == .orderedDescending }) ?? true {
            lower[field] = newLower
        }
        if let newUpper, upper[field].map({ IndexOrder.compare(newUpper, $0) == .orderedAscending }) ?? true {
            upper[field] = newUpper
        }
    }

    /// Whether every entry the walk yields satisfies `conjunct`, so that it need not be checked
    /// again: an equality on a field the range holds to one value (the leading field, or the next
    /// one when the leading field is held too), with a value for which the index's equality is
    /// Swift's (``StorageValue/indexEqualityIsExact``).
    func guarantees(_ conjunct: StorageFilter, in layout: IndexLayout) -> Bool {
        let fields = layout.indexes[index].fields
        if let excluded, let skipped = excluded[excluded.count - 1],
            let value = Self.exclusion(conjunct, on: fields[excluded.count - 1]),
            IndexOrder.compare(value, skipped) == .orderedSame
        {
            return true  // the walk skips every entry holding the value
        }
        guard case .compare(let field, .equal, let value) = conjunct, value.indexEqualityIsExact else { return false }
        for position in lower.indices where position < fields.count {
            // Only a field held to one value, after fields all held to one value, has one value
            // in every entry of the range.
            guard let low = lower[position], let high = upper[position],
                IndexOrder.compare(low, high) == .orderedSame
            else { return false }
            if fields[position] == field { return IndexOrder.compare(value, low) == .orderedSame }
        }
        return false
    }

    /// Whether `entry` comes before the range.
    func isBelowRange(_ entry: IndexEntry) -> Bool {
        compareToBounds(entry, lower) == .orderedAscending
    }

    /// Whether `entry` comes before the entries the walk skips (``excluded``).
    func isBelowExcluded(_ entry: IndexEntry) -> Bool {
        guard let excluded else { return false }
        return compareToBounds(entry, excluded) == .orderedAscending
    }

    /// Whether `entry` comes after the entries the walk skips (``excluded``).
    func isAboveExcluded(_ entry: IndexEntry) -> Bool {
        guard let excluded else { return true }
        return compareToBounds(entry, excluded) == .orderedDescending
    }

    /// Whether `entry` comes after the range.
    func isAboveRange(_ entry: IndexEntry) -> Bool {
        compareToBounds(entry, upper) == .orderedDescending
    }

    /// How `entry` compares to a bound (a prefix of values; an open bound ends the prefix).
    private func compareToBounds(_ entry: IndexEntry, _ bounds: [StorageValue?]) -> ComparisonResult {
        for (position, bound) in bounds.enumerated() {
            guard let bound, position < entry.fieldCount else { return .orderedSame }
            let order = IndexOrder.compare(entry.fieldValue(at: position), bound)
            if order != .orderedSame { return order }
            // Equal on this field: the next bound decides. There is one only when this field is
            // fixed by an equality (`best` narrows the second field only then), so entries equal
            // here are ordered by the next field.
        }
        return .orderedSame
    }
}
