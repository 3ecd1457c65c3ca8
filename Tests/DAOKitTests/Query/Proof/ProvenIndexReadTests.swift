import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// Indexes fed by stored-property reads — the memory context's, and the file context's cache —
/// answer what a scan through `encode(to:)` answers, for an entity the proof holds for and for
/// every one it must refuse: were a refused entity's properties read as its fields, its index
/// would hold values its encoding never stores and the answers would differ.
@Suite("Indexes read proven fields")
struct ProvenIndexReadTests {
    typealias E = ProofEntities

    static let contexts = [ContextFactory.memory, .fileJSON]

    /// Every query's answer from an indexed context, and the scan's: the same query applied to
    /// every stored entity. Asked twice: after the first half is saved (the file context builds
    /// its cache then), and after the second half (which it adds to the cache in place). Each
    /// query's sort ends with the id, so that both orders are total.
    func expectIndexedAnswersEqualTheScan<Entity: Storable>(
        _ entities: [Entity], _ queries: [StorageQuery], on factory: ContextFactory,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        for half in [entities.prefix(entities.count / 2), entities.suffix(from: entities.count / 2)] {
            try context.save(Array(half))
            let all = try context.fetchAll(Entity.self)
            for var query in queries {
                query.sort.append(StorageSortKey("id"))
                let indexed = try context.fetch(Entity.self, matching: query).map { $0.id.storageKey }
                let scanned = try query.apply(to: all).map { $0.id.storageKey }
                #expect(indexed == scanned, "\(factory) \(query)", sourceLocation: sourceLocation)
                if let filter = query.filter {
                    let matching = try StorageQuery(filter: filter).apply(to: all).count
                    #expect(
                        try context.count(Entity.self, matching: filter) == matching, "\(factory) \(query)",
                        sourceLocation: sourceLocation)
                }
            }
        }
    }

    static func groupKeyQueries(_ groups: [StorageValue], keys: [StorageValue]) -> [StorageQuery] {
        var queries: [StorageQuery] = []
        for group in groups {
            queries.append(StorageQuery(filter: .compare("group", .equal, group), sort: [StorageSortKey("key")]))
            for key in keys {
                queries.append(
                    StorageQuery(
                        filter: .and([.compare("group", .equal, group), .compare("key", .greaterOrEqual, key)]),
                        sort: [StorageSortKey("key", order: .reverse)], limit: 5))
                queries.append(StorageQuery(filter: .compare("key", .equal, key)))
            }
        }
        return queries
    }

    @Test(arguments: contexts) func aPlainStructsIndexesAnswerAsTheScanDoes(_ factory: ContextFactory) throws {
        let entities = (0..<120).map(E.plain)
        var queries = Self.groupKeyQueries([.string("g0"), .string("g3")], keys: [.int(-40), .int(0), .int(17)])
        queries += [
            StorageQuery(filter: .compare("place.city", .equal, .string("Rome"))),
            StorageQuery(filter: .compare("note", .equal, .null), sort: [StorageSortKey("stamp")]),
            StorageQuery(
                filter: .and([
                    .compare("note", .equal, .string("n1")),
                    .compare("stamp", .less, .date(Date(timeIntervalSinceReferenceDate: 6))),
                ])),
        ]
        try expectIndexedAnswersEqualTheScan(entities, queries, on: factory)
    }

    @Test(arguments: contexts) func aTransformingCodersIndexesHoldTheStoredValues(_ factory: ContextFactory) throws {
        let entities = (0..<60).map { E.Transforming(id: $0, key: $0 % 9, group: "g\($0 % 3)") }
        try expectIndexedAnswersEqualTheScan(
            entities, Self.groupKeyQueries([.string("g1")], keys: [.int(3), .int(30), .int(50)]), on: factory)
    }

    @Test(arguments: contexts) func swappedKeysIndexesHoldTheStoredValues(_ factory: ContextFactory) throws {
        let entities = (0..<60).map { E.Swapped(id: $0, key: $0 % 9, other: 100 + $0 % 4, group: "g\($0 % 3)") }
        try expectIndexedAnswersEqualTheScan(
            entities, Self.groupKeyQueries([.string("g2")], keys: [.int(3), .int(101)]), on: factory)
    }

    @Test(arguments: contexts) func renamedKeysIndexesHoldTheStoredValues(_ factory: ContextFactory) throws {
        let entities = (0..<60).map { E.Renamed(id: $0, key: $0 % 9, group: "g\($0 % 3)", label: "l\($0 % 2)") }
        try expectIndexedAnswersEqualTheScan(
            entities, Self.groupKeyQueries([.string("g0"), .string("l1")], keys: [.int(4)]), on: factory)
    }

    @Test(arguments: contexts) func aComputedFieldsIndexesHoldTheStoredValues(_ factory: ContextFactory) throws {
        let entities = (0..<60).map { E.Computed(id: $0, key: 2 * ($0 % 9), group: "g\($0 % 3)") }
        try expectIndexedAnswersEqualTheScan(
            entities, Self.groupKeyQueries([.string("g1")], keys: [.int(4), .int(8)]), on: factory)
    }

    @Test(arguments: contexts) func aDateStoredAsANumberIsIndexedAsTheNumber(_ factory: ContextFactory) throws {
        let entities = (0..<60).map {
            E.DateAsNumber(id: $0, stamp: Date(timeIntervalSince1970: Double($0 % 7)), group: "g\($0 % 2)")
        }
        let queries = [
            StorageQuery(
                filter: .and([.compare("group", .equal, .string("g1")), .compare("stamp", .greater, .double(3))])),
            StorageQuery(filter: .compare("stamp", .less, .date(Date(timeIntervalSince1970: 3)))),
            StorageQuery(filter: .compare("group", .equal, .string("g0")), sort: [StorageSortKey("stamp")]),
        ]
        try expectIndexedAnswersEqualTheScan(entities, queries, on: factory)
    }

    @Test(arguments: contexts) func aClassEntitysIndexesAnswerAsTheScanDoes(_ factory: ContextFactory) throws {
        let entities = (0..<60).map { E.Boxed(id: $0, key: $0 % 9, group: "g\($0 % 3)") }
        try expectIndexedAnswersEqualTheScan(
            entities, Self.groupKeyQueries([.string("g1")], keys: [.int(4)]), on: factory)
    }

    @Test(arguments: contexts) func anEnumAndAnOptionalChainAreIndexedThroughTheirEncoding(_ factory: ContextFactory)
        throws
    {
        let enums = (0..<40).map { E.RawEnum(id: $0, key: $0 % 5, level: $0 % 2 == 0 ? .low : .high) }
        try expectIndexedAnswersEqualTheScan(
            enums, [StorageQuery(filter: .compare("level", .equal, .string("high")), sort: [StorageSortKey("key")])],
            on: factory)
        let chains = (0..<40).map {
            E.OptionalChain(id: $0, place: $0 % 3 == 0 ? nil : E.Place(city: "c\($0 % 4)", zip: $0))
        }
        try expectIndexedAnswersEqualTheScan(
            chains,
            [
                StorageQuery(filter: .compare("place.city", .equal, .string("c1"))),
                StorageQuery(filter: .compare("place.city", .equal, .null)),
            ], on: factory)
    }
}
