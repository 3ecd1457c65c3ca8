import Foundation

extension BaseDao {
    /// What ``read(where:sortedBy:limit:offset:)-8z1iu`` does for this predicate, sort and page, without
    /// running it: the ``StorageQuery`` handed to the context (pushed down), how the context answers
    /// it (the index it walks, or the SQL and SQLite's plan, for an ``ExplainingStorageContext``),
    /// and what is evaluated in Swift on the mapped values. `description` reads as three lines.
    ///
    /// The first explanation of a type pair, like its first query, reads one stored record to
    /// prove which key paths are fields (see `FieldProof.swift`); while the store is empty nothing
    /// is proven and the explanation says everything runs in Swift. It explains `BaseDao`'s own
    /// `read`: a subclass that overrides `read` is not looked into.
    /// - Throws: ``StorageError`` of code ``StorageError/Code/invalidQuery`` for a negative `limit`
    ///   or `offset`, or what the context throws while explaining.
    public func explain(
        where predicate: Predicate<Domain>? = nil,
        sortedBy: [SortDescriptor<Domain>] = [],
        limit: Int? = nil,
        offset: Int = 0
    ) throws -> QueryExplanation {
        try StorageQuery.validatePage(limit: limit, offset: offset, entityName: Entity.entityName)
        let plan = queryPlan(predicate: predicate, sortedBy: sortedBy, limit: limit, offset: offset)
        return try explanation(of: plan, hasPredicate: predicate != nil, counting: false)
    }

    /// What ``count(where:)-4z4cn`` does for `predicate`, as ``explain(where:sortedBy:limit:offset:)``
    /// says for a read: a predicate that translates exactly is counted by the context
    /// (``QueryExplanation/countedByContext``).
    /// - Throws: what the context throws while explaining.
    public func explainCount(where predicate: Predicate<Domain>) throws -> QueryExplanation {
        try explanation(
            of: queryPlan(predicate: predicate, sortedBy: [], limit: nil, offset: 0), hasPredicate: true, counting: true
        )
    }

    /// The explanation of `plan`.
    func explanation(of plan: DaoQueryPlan<Domain>, hasPredicate: Bool, counting: Bool) throws -> QueryExplanation {
        let countedByContext = counting && plan.residualPredicate == nil && plan.storageQuery.filter != nil
        let access = try (context as? any ExplainingStorageContext)?.explain(
            plan.storageQuery, counting: countedByContext, for: Entity.self)
        return QueryExplanation(
            storageQuery: plan.storageQuery,
            filterIsExact: plan.residualPredicate == nil && (plan.storageQuery.filter != nil || !hasPredicate),
            evaluatesPredicateInSwift: plan.residualPredicate != nil,
            sortsInSwift: !plan.residualSort.isEmpty,
            pagesInSwift: plan.residualLimit != nil || plan.residualOffset > 0,
            countedByContext: countedByContext,
            access: access)
    }

    /// Tells ``QueryDiagnostics/onLargeScan`` about `plan` when it reads every record of a large
    /// store, once per query shape: only while a handler is set, and never failing the query.
    func reportLargeScan(_ plan: DaoQueryPlan<Domain>, hasPredicate: Bool, counting: Bool) {
        // Reading everything is what a query without predicate or sort asks for: no news.
        guard hasPredicate || !plan.storageQuery.sort.isEmpty || !plan.residualSort.isEmpty,
            QueryDiagnostics.onLargeScan != nil
        else { return }
        let shape =
            "\(Entity.entityName)|\(ObjectIdentifier(Domain.self))|\(plan.storageQuery.fields)|\(plan.residualPredicate != nil)"
            + "|\(!plan.residualSort.isEmpty)|\(counting)"
        guard let (handler, threshold) = QueryDiagnostics.claim(shape),
            let explanation = try? explanation(of: plan, hasPredicate: hasPredicate, counting: counting),
            explanation.scansEveryRecord, let count = try? context.count(Entity.self), count >= threshold
        else { return }
        handler(LargeScan(entityName: Entity.entityName, recordCount: count, explanation: explanation))
    }
}
