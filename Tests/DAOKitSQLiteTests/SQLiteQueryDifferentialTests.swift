import DAOKitSQL
import DAOKitTesting
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitSQLite

/// Generated queries on ``SQLiteStorageContext`` against ``StorageQuery/apply(to:)`` on the same
/// entities (the Swift evaluation that defines every query's answer), with and without indexes.
@Suite("SQLite query differential")
struct SQLiteQueryDifferentialTests {
    static let queriesPerSeed = 400

    @Test("fetch and count agree with the Swift evaluation", arguments: [1, 2, 3])
    func fetchAndCountAgreeWithTheSwiftEvaluation(seed: UInt64) throws {
        try check(QueryProbe<QueryProbeIndexed>.self, seed: seed)
        try check(QueryProbe<QueryProbeUnindexed>.self, seed: seed)
    }

    private func check<Variant>(_ type: QueryProbe<Variant>.Type, seed: UInt64) throws {
        let context = try SQLiteStorageContext()
        var inSQL = (filters: 0, queries: 0)
        let mismatches = try QueryDifferential.fetchAndCountMismatches(
            type, in: context, seed: seed, queries: Self.queriesPerSeed
        ) { query in
            let translation = try #require(try context.translation(of: query, for: type))
            if translation.conditionIsExact && query.filter != nil { inSQL.filters += 1 }
            if translation.isExact { inSQL.queries += 1 }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
        // The comparison means something only if SQL answers a good share of the queries alone.
        #expect(
            inSQL.filters > Self.queriesPerSeed / 5 && inSQL.queries > Self.queriesPerSeed / 5,
            "answered in SQL: \(inSQL)")
    }

    @Test("delete(matching:) removes exactly what the Swift evaluation selects", arguments: [4, 5, 6, 7])
    func deleteRemovesExactlyWhatTheSwiftEvaluationSelects(seed: UInt64) throws {
        let mismatches = try QueryDifferential.deleteMismatches(QueryProbe<QueryProbeIndexed>.self, seed: seed) {
            try SQLiteStorageContext()
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func stringsEqualAsSwiftStringsMatchInSQL() throws {
        let context = try SQLiteStorageContext()
        var data = SeededGenerator(seed: 9)
        var entities = QueryProbe<QueryProbeIndexed>.samples(3, using: &data)
        entities[0].name = "\u{212A}"  // KELVIN SIGN, == "K" in Swift
        entities[1].name = "e\u{301}"  // NFD é
        entities[2].name = "K"
        try context.save(entities)
        let kelvin = try context.fetch(
            QueryProbe<QueryProbeIndexed>.self, matching: StorageQuery(filter: .compare("name", .equal, .string("K"))))
        #expect(Set(kelvin.map(\.id)) == [0, 2])
        let acute = try context.count(
            QueryProbe<QueryProbeIndexed>.self, matching: .compare("name", .equal, .string("é")))
        #expect(acute == 1)
        // And they come back byte for byte as stored.
        let stored = try #require(try context.fetch(QueryProbe<QueryProbeIndexed>.self, id: 1))
        #expect(Array(stored.name.unicodeScalars) == Array("e\u{301}".unicodeScalars))
    }

    @Test func anIndexedScreenQueryIsAnsweredBySQLAlone() throws {
        let kinds: [String: SQLiteFieldKinds] = ["group": [.string], "flag": [.bool], "date": [.date]]
        let query = StorageQuery(
            filter: .and([.compare("group", .equal, .string("g1")), .compare("flag", .equal, .bool(false))]),
            sort: [StorageSortKey("date", order: .reverse)], limit: 20)
        let translation = SQLiteQueryTranslation(query, kinds: kinds)
        #expect(translation.isExact)
        #expect(translation.condition == "(\"group\" COLLATE DAOKIT IS ?) AND (\"flag\" COLLATE DAOKIT IS ?)")
        #expect(translation.ordering == "\"date\" COLLATE DAOKIT DESC")
    }

    @Test func aDeclaredIndexServesTheQueryItsLeadingFieldsFix() throws {
        let context = try SQLiteStorageContext()
        var data = SeededGenerator(seed: 11)
        try context.save(QueryProbe<QueryProbeIndexed>.samples(50, using: &data))
        try context.save(QueryProbe<QueryProbeUnindexed>.samples(50, using: &data))
        let query = StorageQuery(
            filter: .compare("group", .equal, .string("g1")), sort: [StorageSortKey("date", order: .reverse)], limit: 5)
        let indexed = try context.queryPlan(of: query, for: QueryProbe<QueryProbeIndexed>.self)
        #expect(indexed.contains { $0.contains("USING INDEX") && $0.contains("group") }, "\(indexed)")
        #expect(!indexed.contains { $0.contains("TEMP B-TREE") }, "the index gives the order: \(indexed)")
        let unindexed = try context.queryPlan(of: query, for: QueryProbe<QueryProbeUnindexed>.self)
        #expect(unindexed.contains { $0.hasPrefix("SCAN") }, "\(unindexed)")
    }

    @Test func aColumnHoldingTwoKindsIsComparedInSwift() throws {
        let translation = SQLiteQueryTranslation(
            StorageQuery(filter: .compare("value", .less, .int(3))),
            kinds: ["value": [.integer, .real]])
        #expect(!translation.conditionIsExact)
        #expect(translation.condition == nil)
    }
}
