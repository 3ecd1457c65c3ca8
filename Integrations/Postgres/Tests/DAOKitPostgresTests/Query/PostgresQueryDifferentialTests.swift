import DAOKit
import DAOKitSQL
import DAOKitTesting
import Foundation
import PostgresNIO
import Testing

@testable import DAOKitPostgres

/// Generated queries on ``PostgresStorageContext`` against ``StorageQuery/apply(to:)`` on the same
/// entities (DAOKitTesting's ``QueryDifferential``), with and without indexes.
@Suite("Postgres query differential")
struct PostgresQueryDifferentialTests {
    static let queriesPerSeed = 250

    @Test("fetch and count agree with the Swift evaluation", arguments: [1, 2] as [UInt64])
    func fetchAndCountAgreeWithTheSwiftEvaluation(seed: UInt64) async throws {
        try await check(QueryProbe<QueryProbeIndexed>.self, seed: seed)
        try await check(QueryProbe<QueryProbeUnindexed>.self, seed: seed)
    }

    private func check<Variant>(_ type: QueryProbe<Variant>.Type, seed: UInt64) async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let mismatches = try await Task.detached {
            try QueryDifferential.fetchAndCountMismatches(type, in: context, seed: seed, queries: Self.queriesPerSeed)
        }.value
        #expect(mismatches.isEmpty, "\(mismatches)")
        // The comparison means something only if SQL answers a good share of the queries alone.
        var generator = QueryProbeGenerator(generator: SeededGenerator(seed: seed &* 7919))
        var exact = 0
        for _ in 0..<Self.queriesPerSeed where try await context.translation(of: generator.query(), for: type).isExact {
            exact += 1
        }
        #expect(exact > Self.queriesPerSeed / 5, "answered in SQL: \(exact) of \(Self.queriesPerSeed)")
    }

    @Test("Foundation's predicate and sort cases answer as Swift")
    func foundationsPredicateAndSortCasesAnswerAsSwift() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let mismatches = try await Task.detached { try QueryDifferential.foundationCorpusMismatches(in: context) }.value
        #expect(mismatches.isEmpty, "\(mismatches.map(\.description).joined(separator: "\n"))")
    }

    @Test("delete(matching:) removes exactly what the Swift evaluation selects", arguments: [4, 5] as [UInt64])
    func deleteRemovesExactlyWhatTheSwiftEvaluationSelects(seed: UInt64) throws {
        let mismatches = try QueryDifferential.deleteMismatches(
            QueryProbe<QueryProbeIndexed>.self, seed: seed, deletes: 15
        ) {
            try TestServer.context()
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func stringsEqualAsSwiftStringsMatchAndComeBackAsStored() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        var data = SeededGenerator(seed: 9)
        var entities = QueryProbe<QueryProbeIndexed>.samples(3, using: &data)
        entities[0].name = "\u{212A}"  // KELVIN SIGN, == "K" in Swift
        entities[1].name = "e\u{301}"  // NFD é
        entities[2].name = "K"
        try await context.save(entities, mode: .upsert)
        let kelvin = try await context.fetch(
            QueryProbe<QueryProbeIndexed>.self, matching: StorageQuery(filter: .compare("name", .equal, .string("K"))))
        #expect(Set(kelvin.map(\.id)) == [0, 2])
        #expect(
            try await context.count(
                QueryProbe<QueryProbeIndexed>.self, matching: .compare("name", .equal, .string("é"))) == 1)
        let stored = try #require(try await context.fetch(QueryProbe<QueryProbeIndexed>.self, id: 1))
        #expect(Array(stored.name.unicodeScalars) == Array("e\u{301}".unicodeScalars))
    }

    @Test func theScreenQueryIsAnsweredBySQLThroughTheDeclaredIndex() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        var data = SeededGenerator(seed: 11)
        // ASCII groups only, so that SQL can compare them, and distinct dates, so that one order is right.
        let entities = QueryProbe<QueryProbeIndexed>.samples(300, using: &data).map {
            probe -> QueryProbe<QueryProbeIndexed> in
            var probe = probe
            probe.group = "g\(probe.id % 7)"
            probe.date = Date(timeIntervalSinceReferenceDate: Double(probe.id) * 10)
            return probe
        }
        try await context.save(entities, mode: .upsert)
        let query = StorageQuery(
            filter: .compare("group", .equal, .string("g1")), sort: [StorageSortKey("date", order: .reverse)], limit: 5)
        #expect(try await context.translation(of: query, for: QueryProbe<QueryProbeIndexed>.self).isExact)
        let plan = try await context.plan(of: query, for: QueryProbe<QueryProbeIndexed>.self)
        #expect(plan.contains { $0.contains("Index Scan Backward using daokit_p0_") }, "\(plan)")
        #expect(!plan.contains { $0.contains("Sort  (") }, "the index gives the order: \(plan)")
        // The plan a prepared statement settles on, made without the values, uses the index too.
        let generic = try await context.plan(of: query, for: QueryProbe<QueryProbeIndexed>.self, generic: true)
        #expect(generic.contains { $0.contains("Index Scan Backward using daokit_p0_") }, "\(generic)")
        #expect(!generic.contains { $0.contains("Sort  (") }, "the index gives the order: \(generic)")
        #expect(
            try await context.fetch(QueryProbe<QueryProbeIndexed>.self, matching: query).map(\.id)
                == (try query.apply(to: entities)).map(\.id))
    }

    @Test func aFieldHoldingNonASCIIStringsIsComparedInSwift() throws {
        let translation = PostgresQueryTranslation(
            StorageQuery(filter: .compare("name", .less, .string("b"))),
            dialect: PostgresDialect(kinds: ["name": [.asciiString, .string]]),
            parameters: StatementParameters())
        #expect(!translation.conditionIsExact)
        #expect(translation.condition == nil)
    }
}
