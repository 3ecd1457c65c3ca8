import DAOKit
import DAOKitTestSupport
import Foundation

/// What one differential run checked and found.
struct DifferentialOutcome {
    /// Generated queries run through `read(where:sortedBy:limit:offset:)`.
    var cases = 0
    /// Of those, the ones with a predicate, also run through `count(where:)`.
    var countChecks = 0
    /// Of those, the ones also run through `erase(where:)`.
    var eraseChecks = 0
    /// Reads for which the context was handed a filter, a sort, a page.
    var pushedFilters = 0, pushedSorts = 0, pushedPages = 0
    /// Counts and erases the context did alone (the predicate translated exactly).
    var exactCounts = 0, exactErases = 0
    /// One line per wrong answer, naming the seed, the case and the query.
    var mismatches: [String] = []

    mutating func add(_ other: DifferentialOutcome) {
        cases += other.cases
        countChecks += other.countChecks
        eraseChecks += other.eraseChecks
        pushedFilters += other.pushedFilters
        pushedSorts += other.pushedSorts
        pushedPages += other.pushedPages
        exactCounts += other.exactCounts
        exactErases += other.exactErases
        mismatches += other.mismatches
    }

    var summary: String {
        "\(cases) reads (\(pushedFilters) with a pushed filter, \(pushedSorts) sort, \(pushedPages) page), "
            + "\(countChecks) counts (\(exactCounts) exact), \(eraseChecks) erases (\(exactErases) exact)"
    }
}

/// Runs generated queries through BaseDao on one context and compares every answer with the full
/// scan's: `DomainQuery(…).apply(to: dao.read())` on the same stored values.
enum DifferentialRunner {
    /// One query in this many with a predicate is also run through `erase(where:)` (then the
    /// erased values are stored again): erasing and restoring costs more than reading (on files,
    /// two journaled batches), and a tenth of the cases covers every shape.
    static let eraseEvery = 10

    /// Runs `caseCount` queries on the model's indexed entity and the same queries on its plain one.
    static func run<Model: DifferentialModel>(
        _ model: Model.Type, on factory: ContextFactory, seed: UInt64, caseCount: Int
    ) throws -> DifferentialOutcome {
        var outcome = try run(Model.self, as: Model.IndexedEntity.self, on: factory, seed: seed, caseCount: caseCount)
        outcome.add(try run(Model.self, as: Model.PlainEntity.self, on: factory, seed: seed, caseCount: caseCount))
        return outcome
    }

    private static func run<Model: DifferentialModel, Entity: Storable>(
        _ model: Model.Type, as entity: Entity.Type, on factory: ContextFactory, seed: UInt64, caseCount: Int
    ) throws -> DifferentialOutcome where Entity.ID == Model.Domain.ID {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = QueryRecordingContext(fresh.context)
        let dao = BaseDao<Model.Domain, Entity>(context: context)
        var random = SeededGenerator(seed: seed)
        let values = Model.values(&random)
        try dao.persist(values)
        var stored = try dao.read()
        var generator = QueryGenerator<Model>(random: random)
        var outcome = DifferentialOutcome()

        for index in 0..<caseCount {
            let query = generator.query(storedCount: values.count)
            let label = "\(Model.name) as \(Entity.self) on \(factory), seed \(seed), case \(index): \(query.source)"
            let descriptors = query.sortDescriptors
            let predicate = query.predicate?.predicate
            outcome.cases += 1

            let expected = try DomainQuery(
                predicate: predicate, sortedBy: descriptors, limit: query.limit, offset: query.offset
            )
            .apply(to: stored)
            _ = context.takeRequests()
            do {
                let actual = try dao.read(
                    where: predicate, sortedBy: descriptors, limit: query.limit, offset: query.offset)
                if let difference = ResultComparison.difference(
                    expected: expected, actual: actual, sortedBy: descriptors)
                {
                    outcome.mismatches.append("\(label): read: \(difference)")
                }
            } catch {
                outcome.mismatches.append("\(label): read threw \(error)")
            }
            for case .fetch(let storageQuery) in context.takeRequests() where !isProofSample(storageQuery) {
                if storageQuery.filter != nil { outcome.pushedFilters += 1 }
                if !storageQuery.sort.isEmpty { outcome.pushedSorts += 1 }
                if storageQuery.limit != nil || storageQuery.offset > 0 { outcome.pushedPages += 1 }
            }

            guard let predicate else { continue }
            let matching = try stored.filter(predicate.evaluate)
            outcome.countChecks += 1
            do {
                let count = try dao.count(where: predicate)
                if count != matching.count {
                    outcome.mismatches.append("\(label): count(where:) is \(count), expected \(matching.count)")
                }
            } catch {
                outcome.mismatches.append("\(label): count(where:) threw \(error)")
            }
            if context.takeRequests().contains(where: { if case .count = $0 { true } else { false } }) {
                outcome.exactCounts += 1
            }

            guard index % eraseEvery == 0 else { continue }
            outcome.eraseChecks += 1
            let doomed = Set(matching.map(\.id))
            do {
                try dao.erase(where: predicate)
                if context.takeRequests().contains(where: { if case .delete = $0 { true } else { false } }) {
                    outcome.exactErases += 1
                }
                let left = try dao.read()
                let expectedLeft = stored.filter { !doomed.contains($0.id) }
                if let difference = ResultComparison.difference(expected: expectedLeft, actual: left, sortedBy: []) {
                    outcome.mismatches.append("\(label): erase(where:) left the wrong values: \(difference)")
                }
            } catch {
                outcome.mismatches.append("\(label): erase(where:) threw \(error)")
            }
            // Store everything again, whatever the erase did, so the next case starts from the same values.
            try dao.persist(stored)
            stored = try dao.read()
        }
        return outcome
    }

    /// Whether `query` is the one-entity read the field proof samples the store with (no filter,
    /// no sort, limit 1): never one a generated query makes, since a paged query sorts by id.
    private static func isProofSample(_ query: StorageQuery) -> Bool {
        query.filter == nil && query.sort.isEmpty && query.limit == 1 && query.offset == 0
    }
}
