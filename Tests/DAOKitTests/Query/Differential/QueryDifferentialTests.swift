import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// BaseDao's queries — `read(where:sortedBy:limit:offset:)`, `count(where:)`, `erase(where:)` —
/// give exactly the answers of the full scan (`DomainQuery(…).apply(to: dao.read())` on the same
/// values), for generated predicates, sorts and pages, on every shipped context, with and without
/// indexes, whatever part of each query is pushed down to the context.
///
/// A failure lists the seed, the case number and the query as Swift source; rerun with
/// `DAOKIT_QUERY_SEED=<seed>` to explore other queries.
@Suite("Query differential")
struct QueryDifferentialTests {
    /// Generated queries per model, context and entity (indexed, plain).
    static let caseCount = 200

    @Test(arguments: QueryModelCase.all, ContextFactory.everyShipped)
    func queriesAnswerWhatTheFullScanAnswers(model: QueryModelCase, context: ContextFactory) throws {
        let seed = model.seed(mixedWith: QueryModelCase.seed)
        let outcome = try model.run(context, seed, Self.caseCount)
        #expect(outcome.cases == 2 * Self.caseCount)
        #expect(outcome.countChecks > Self.caseCount, "too few generated predicates: \(outcome.summary)")
        #expect(outcome.eraseChecks > Self.caseCount / DifferentialRunner.eraseEvery, "\(outcome.summary)")
        #expect(
            outcome.mismatches.isEmpty,
            """
            \(outcome.mismatches.count) wrong answers (\(outcome.summary)); the first ones:
            \(outcome.mismatches.prefix(8).joined(separator: "\n"))
            """)
    }

    /// The generator is not vacuous: on the model whose properties are all proven, most reads
    /// hand the context a filter, and sorts, pages, exact counts and exact erases all occur.
    @Test func generatedQueriesReachTheContextWhereEverythingIsProven() throws {
        let model = QueryModelCase(ScalarEdgesModel.self)
        let outcome = try model.run(.memory, model.seed(mixedWith: QueryModelCase.seed), Self.caseCount)
        #expect(outcome.pushedFilters > outcome.cases / 2, "\(outcome.summary)")
        #expect(outcome.pushedSorts > outcome.cases / 4, "\(outcome.summary)")
        #expect(outcome.pushedPages > outcome.cases / 10, "\(outcome.summary)")
        #expect(outcome.exactCounts > outcome.countChecks / 2, "\(outcome.summary)")
        #expect(outcome.exactErases > 0, "\(outcome.summary)")
        #expect(outcome.mismatches.isEmpty, "\(outcome.mismatches.prefix(8).joined(separator: "\n"))")
    }
}
