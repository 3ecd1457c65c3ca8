import DAOKit

/// Checks a context's query methods against the Swift evaluation that defines every query's
/// answer (``StorageQuery/apply(to:)``), on generated queries over ``QueryProbe``s: for a
/// context that translates queries (to SQL, to an index walk), whose every shortcut must give the
/// answer a full scan gives.
///
/// ```swift
/// @Test(arguments: [1, 2, 3] as [UInt64]) func queriesAgreeWithSwift(seed: UInt64) throws {
///     let mismatches = try QueryDifferential.fetchAndCountMismatches(
///         QueryProbe<QueryProbeIndexed>.self, in: MyContext(), seed: seed)
///     #expect(mismatches.isEmpty, "\(mismatches)")
/// }
/// ```
///
/// A seed fixes the entities and the queries, so a mismatch is reproduced by running its seed again.
public enum QueryDifferential {
    /// One query the context answered differently.
    public struct Mismatch: CustomStringConvertible, Sendable {
        /// Which call, with the seed and the query's number: `fetch 17 (seed 2)`.
        public let call: String
        /// The query or filter, as `StorageQuery` prints it.
        public let query: String
        /// The ids the Swift evaluation selects (or the count), and what the context returned.
        public let expected: String
        public let actual: String

        public var description: String { "\(call): expected \(expected), got \(actual) for \(query)" }
    }

    /// Saves `samples` probes into `context` (which should be empty), then runs `queries` generated
    /// queries through ``StorageContext/fetch(_:matching:)`` and their filters through
    /// ``StorageContext/count(_:matching:)``: every result must be the Swift evaluation's (the same
    /// ids in the same order when the query sorts, the same set otherwise; the same count).
    /// - Parameter eachQuery: called with every query before it runs, to measure what a context
    ///   answered by itself.
    /// - Returns: every disagreement; empty when the context agrees.
    /// - Throws: what the context throws.
    public static func fetchAndCountMismatches<Variant>(
        _ type: QueryProbe<Variant>.Type, in context: any StorageContext, seed: UInt64, queries: Int = 400,
        samples: Int = 60, eachQuery: (StorageQuery) throws -> Void = { _ in }
    ) throws -> [Mismatch] {
        var data = SeededGenerator(seed: seed)
        let entities = QueryProbe<Variant>.samples(samples, using: &data)
        try context.save(entities)
        var generator = QueryProbeGenerator(generator: SeededGenerator(seed: seed &* 7919))
        var mismatches: [Mismatch] = []
        for number in 0..<queries {
            let query = generator.query()
            try eachQuery(query)
            let expected = try query.apply(to: entities).map(\.id)
            let fetched = try context.fetch(type, matching: query).map(\.id)
            let agrees =
                query.sort.isEmpty
                ? Set(fetched) == Set(expected) && fetched.count == expected.count : fetched == expected
            if !agrees {
                mismatches.append(
                    Mismatch(
                        call: "fetch \(number) (seed \(seed), \(Variant.self))", query: "\(query)",
                        expected: "\(expected)", actual: "\(fetched)"))
            }
            if let filter = query.filter {
                let expectedCount = try StorageQuery(filter: filter).apply(to: entities).count
                let count = try context.count(type, matching: filter)
                if count != expectedCount {
                    mismatches.append(
                        Mismatch(
                            call: "count \(number) (seed \(seed), \(Variant.self))", query: "\(filter)",
                            expected: "\(expectedCount)", actual: "\(count)"))
                }
            }
        }
        return mismatches
    }

    /// For each of `deletes` generated filters: saves `samples` probes into a context from
    /// `makeContext` (empty each time), calls ``StorageContext/delete(_:matching:)``, and checks
    /// that exactly the entities the Swift evaluation selects are gone.
    /// - Returns: every disagreement; empty when the context agrees.
    /// - Throws: what the context throws.
    public static func deleteMismatches<Variant>(
        _ type: QueryProbe<Variant>.Type, seed: UInt64, deletes: Int = 25, samples: Int = 40,
        makeContext: () throws -> any StorageContext
    ) throws -> [Mismatch] {
        var data = SeededGenerator(seed: seed)
        let entities = QueryProbe<Variant>.samples(samples, using: &data)
        var generator = QueryProbeGenerator(generator: SeededGenerator(seed: seed &* 104_729))
        var mismatches: [Mismatch] = []
        for number in 0..<deletes {
            let context = try makeContext()
            try context.save(entities)
            let filter = generator.filter()
            let doomed = Set(try StorageQuery(filter: filter).apply(to: entities).map(\.id))
            try context.delete(type, matching: filter)
            let left = Set(try context.fetchAll(type).map(\.id))
            let expected = Set(entities.map(\.id)).subtracting(doomed)
            if left != expected {
                mismatches.append(
                    Mismatch(
                        call: "delete \(number) (seed \(seed), \(Variant.self))", query: "\(filter)",
                        expected: "\(expected.sorted())", actual: "\(left.sorted())"))
            }
        }
        return mismatches
    }
}
