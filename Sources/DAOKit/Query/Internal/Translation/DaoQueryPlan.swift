import Foundation

/// How ``BaseDao`` runs a query: what the context is asked (``storageQuery``) and what is left to
/// do on the mapped domain values, in this order: filter, sort, page.
///
/// Limit and offset go to the context only when the filter and the sort both translated exactly:
/// otherwise the context's page would be a page of the wrong list.
struct DaoQueryPlan<Domain> {
    /// What the context evaluates: a translated (exact or superset) filter, the sort if it
    /// translated, the page if everything did.
    var storageQuery = StorageQuery()
    /// Evaluated on mapped values when the filter did not translate exactly.
    var residualPredicate: Predicate<Domain>?
    /// Applied on mapped values when the sort did not translate.
    var residualSort: [SortDescriptor<Domain>] = []
    /// Applied on mapped values unless the context pages.
    var residualLimit: Int?
    var residualOffset = 0

    /// Whether the context is asked for nothing but every entity: `fetchAll` does that fastest.
    var readsEverything: Bool {
        storageQuery.filter == nil && storageQuery.sort.isEmpty && storageQuery.limit == nil && storageQuery.offset == 0
    }

    /// The plan for a query, translating what `field` (which key path reads which field) allows;
    /// orderings and sorts only on what `orderedField` allows (`field` unless given).
    /// `absentValue` says what an entity holds in a proven field when its stored record lacks it
    /// (or holds `null`), where that is not `nil`: conditions on such a field are rewritten to
    /// hold for a stored `null` exactly when they hold for that value, and a sort by it stays in
    /// Swift (a stored `null` would sort where `nil` does, not where the value does).
    init(
        predicate: Predicate<Domain>?, sortedBy: [SortDescriptor<Domain>], limit: Int?, offset: Int,
        orderedField: ((AnyKeyPath) -> FieldPath?)? = nil, field: @escaping (AnyKeyPath) -> FieldPath?,
        absentValue: (FieldPath) -> StorageValue? = { _ in nil },
        order: (SortDescriptor<Domain>, FieldPath) -> SortOrder? = { descriptor, _ in descriptor.order }
    ) {
        var filterIsExact = true
        if let predicate {
            if let translated = PredicateTranslator.translate(predicate, field: field, orderedField: orderedField) {
                storageQuery.filter = translated.filter.meaningAbsentAs(absentValue)
                filterIsExact = translated.isExact
            } else {
                filterIsExact = false
            }
            if !filterIsExact { residualPredicate = predicate }
        }
        if let sort = Self.translate(sortedBy, field: orderedField ?? field, order: order),
            sort.allSatisfy({ absentValue($0.field) == nil })
        {
            storageQuery.sort = sort
        } else {
            residualSort = sortedBy
        }
        if filterIsExact && residualSort.isEmpty {
            storageQuery.limit = limit
            storageQuery.offset = offset
        } else {
            residualLimit = limit
            residualOffset = offset
        }
    }

    /// The sort keys for `descriptors`, or `nil` unless every descriptor sorts by a proven key
    /// path with the ordering ``StorageSortKey`` reproduces (its `Comparable` order, or a string
    /// comparator).
    /// `order` says which direction a descriptor really sorts in (see
    /// `FieldProof.effectiveOrder(of:field:)`): Foundation's `compare(_:_:)`, which the sort in
    /// Swift uses, can differ from `descriptor.order` once that was set after creation.
    static func translate(
        _ descriptors: [SortDescriptor<Domain>], field: (AnyKeyPath) -> FieldPath?,
        order: (SortDescriptor<Domain>, FieldPath) -> SortOrder? = { descriptor, _ in descriptor.order }
    ) -> [StorageSortKey]? {
        var keys: [StorageSortKey] = []
        for descriptor in descriptors {
            guard let keyPath = descriptor.keyPath, let path = field(keyPath), let direction = order(descriptor, path)
            else { return nil }
            keys.append(StorageSortKey(path, order: direction, stringComparator: descriptor.stringComparator))
        }
        return keys
    }

    /// The mapped values the context returned, with the residual filter, sort and page applied.
    /// - Throws: an error thrown while evaluating the predicate.
    func finish(_ values: [Domain]) throws -> [Domain] {
        try DomainQuery(
            predicate: residualPredicate, sortedBy: residualSort, limit: residualLimit, offset: residualOffset
        )
        .apply(to: values)
    }
}

extension StorageFilter {
    /// This filter on stored records where a record lacking a field (or holding `null` there)
    /// decodes to `absentValue(field)` when that is not `nil`: each condition on such a field holds
    /// for a stored `null` exactly when it holds for that value, and otherwise as before — so the
    /// filter selects, on stored records, exactly the entities it selects once decoded (which
    /// never hold `null` there). Compositional, so `!` and `||` keep their meaning.
    func meaningAbsentAs(_ absentValue: (FieldPath) -> StorageValue?) -> StorageFilter {
        switch self {
        case .and(let filters): return .and(filters.map { $0.meaningAbsentAs(absentValue) })
        case .or(let filters): return .or(filters.map { $0.meaningAbsentAs(absentValue) })
        case .not(let filter): return .not(filter.meaningAbsentAs(absentValue))
        case .compare(let field, _, _), .isIn(let field, _), .hasPrefix(let field, _), .contains(let field, _):
            guard let value = absentValue(field) else { return self }
            let isNull = StorageFilter.compare(field, .equal, .null)
            let holdsForAbsent = QueryEvaluator(StorageQuery(filter: self), fields: [field]).matches([value])
            return holdsForAbsent ? .or([self, isNull]) : .and([self, .not(isNull)])
        }
    }
}
