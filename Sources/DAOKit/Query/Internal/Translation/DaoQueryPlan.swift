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

    /// The plan for a query, translating what `proof` proves (nothing when `nil`): filters on the
    /// fields it proves key paths read, orderings and sorts only on those it proves ordered.
    /// Where `proof` gives an absent value for a field (what an entity holds there when its stored
    /// record lacks it, or holds `null`), conditions on the field are rewritten to hold for a
    /// stored `null` exactly when they hold for that value, and a sort by it stays in Swift (a
    /// stored `null` would sort where `nil` does, not where the value does). A sort descriptor
    /// goes to the context in the direction `proof` says it really sorts in.
    init<Proof: QueryProof<Domain>>(
        predicate: Predicate<Domain>?, sortedBy: [SortDescriptor<Domain>], limit: Int?, offset: Int, proof: Proof?
    ) {
        let keyPaths: any ProvenKeyPaths = proof ?? NoProvenKeyPaths.shared
        var filterIsExact = true
        if let predicate {
            if let translated = PredicateTranslator.translate(predicate, keyPaths: keyPaths) {
                storageQuery.filter = translated.filter.meaningAbsentAs { proof?.absentValue(of: $0) }
                filterIsExact = translated.isExact
            } else {
                filterIsExact = false
            }
            if !filterIsExact { residualPredicate = predicate }
        }
        if let sort = Self.translate(
            sortedBy, field: { keyPaths.orderedField(for: $0) },
            order: { descriptor, field in
                guard let proof else { return descriptor.order }
                return proof.effectiveOrder(of: descriptor, field: field)
            }),
            sort.allSatisfy({ proof?.absentValue(of: $0.field) == nil })
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
        order: (SortDescriptor<Domain>, FieldPath) -> SortOrder?
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

/// What a query plan asks about the key paths and sort descriptors of `Domain`: which field each
/// key path reads (``ProvenKeyPaths``), what an entity holds in a field its stored record lacks,
/// and which direction a sort descriptor really sorts in. ``FieldProof`` answers.
protocol QueryProof<Domain>: ProvenKeyPaths {
    associatedtype Domain
    /// What the entity holds in `field` when its stored record lacks the field or holds `null`
    /// there; `nil` when a stored `null` already means what the entity holds.
    func absentValue(of field: FieldPath) -> StorageValue?
    /// The direction `descriptor` (on a proven key path reading `field`) really sorts in; `nil`
    /// when that cannot be told.
    func effectiveOrder(of descriptor: SortDescriptor<Domain>, field: FieldPath) -> SortOrder?
}

extension StorageFilter {
    /// This filter on stored records where a record lacking a field (or holding `null` there)
    /// decodes to `absentValue(field)` when that is not `nil`: each condition on such a field holds
    /// for a stored `null` exactly when it holds for that value, and otherwise as before — so the
    /// filter selects, on stored records, exactly the entities it selects once decoded (which
    /// never hold `null` there). Compositional, so `!` and `||` keep their meaning.
    func meaningAbsentAs(_ absentValue: (FieldPath) -> StorageValue?) -> StorageFilter {
        rewritten(absentValue) ?? self
    }

    /// ``meaningAbsentAs(_:)``, or `nil` when no condition changes: the usual case (no field has
    /// an absent value) then builds nothing, so a query's plan does not copy its filter.
    private func rewritten(_ absentValue: (FieldPath) -> StorageValue?) -> StorageFilter? {
        switch self {
        case .and(let filters): return Self.rewritten(filters, absentValue).map { .and($0) }
        case .or(let filters): return Self.rewritten(filters, absentValue).map { .or($0) }
        case .not(let filter): return filter.rewritten(absentValue).map { .not($0) }
        case .compare(let field, _, _), .isIn(let field, _), .hasPrefix(let field, _), .contains(let field, _):
            guard let value = absentValue(field) else { return nil }
            let isNull = StorageFilter.compare(field, .equal, .null)
            let holdsForAbsent = QueryEvaluator(StorageQuery(filter: self), fields: [field]).matches([value])
            return holdsForAbsent ? .or([self, isNull]) : .and([self, .not(isNull)])
        }
    }

    /// `filters` with each rewritten, or `nil` when none changes.
    private static func rewritten(
        _ filters: [StorageFilter], _ absentValue: (FieldPath) -> StorageValue?
    ) -> [StorageFilter]? {
        var result: [StorageFilter]?
        for (position, filter) in filters.enumerated() {
            guard let changed = filter.rewritten(absentValue) else {
                result?.append(filter)
                continue
            }
            if result == nil { result = Array(filters[..<position]) }
            result!.append(changed)
        }
        return result
    }
}
