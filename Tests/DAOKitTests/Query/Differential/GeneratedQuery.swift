import Foundation

/// One generated query: a predicate (or none), a sort, a page, and its source for failure messages.
struct GeneratedQuery<Domain> {
    let predicate: GeneratedPredicate<Domain>?
    let sorts: [(sort: QuerySort<Domain>, order: SortOrder)]
    let limit: Int?
    let offset: Int

    var sortDescriptors: [SortDescriptor<Domain>] { sorts.map { $0.sort.descriptor($0.order) } }

    /// The query as the call that runs it would be written.
    var source: String {
        var parts: [String] = []
        parts.append("where: " + (predicate.map { "#Predicate { \($0.source) }" } ?? "nil"))
        let sortSource = sorts.map { "\($0.sort.name) \($0.order == .forward ? "↑" : "↓")" }
        parts.append("sortedBy: [\(sortSource.joined(separator: ", "))]")
        parts.append("limit: \(limit.map(String.init) ?? "nil")")
        parts.append("offset: \(offset)")
        return "read(" + parts.joined(separator: ", ") + ")"
    }
}

/// Generates queries for a model from a seeded random source.
///
/// A predicate is a tree of up to three levels of `&&`, `||` and `!` over conditions the model's
/// fields generate. A sort has zero to two keys. One query in three is paged; a paged query's
/// sort always ends with the id, so that the page has one right answer (a page cut through values
/// the sort leaves tied could hold any of them). Unpaged results are compared with tied values
/// treated as unordered (see ``ResultComparison``).
struct QueryGenerator<Model: DifferentialModel> {
    var random: SeededGenerator

    mutating func predicate(depth: Int) -> GeneratedPredicate<Model.Domain> {
        if depth == 0 || random.chance(40) {
            return random.pick(Model.fields).condition(&random)
        }
        switch Int.random(in: 0..<5, using: &random) {
        case 0, 1: return predicate(depth: depth - 1) && predicate(depth: depth - 1)
        case 2, 3: return predicate(depth: depth - 1) || predicate(depth: depth - 1)
        default: return !predicate(depth: depth - 1)
        }
    }

    mutating func query(storedCount: Int) -> GeneratedQuery<Model.Domain> {
        let predicate = random.chance(92) ? self.predicate(depth: 3) : nil
        var sorts: [(sort: QuerySort<Model.Domain>, order: SortOrder)] = []
        for _ in 0..<random.pick([0, 1, 1, 2]) {
            sorts.append((random.pick(Model.sorts), random.chance(50) ? .forward : .reverse))
        }
        var limit: Int?
        var offset = 0
        if random.chance(35) {
            limit = random.pick([nil, 0, 1, 2, 5, 11, storedCount + 3])
            offset = random.pick([0, 0, 1, 3, storedCount / 2, storedCount + 1])
            if limit == nil && offset == 0 { limit = 4 }
            sorts.append((Model.idSort, random.chance(50) ? .forward : .reverse))
        }
        return GeneratedQuery(predicate: predicate, sorts: sorts, limit: limit, offset: offset)
    }
}
