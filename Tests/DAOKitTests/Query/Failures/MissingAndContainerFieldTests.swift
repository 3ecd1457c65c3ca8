import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// A filter or sort on a field an entity does not store, or on one that holds a container (an
/// array, a nested struct), reads the field as `nil`, as ``StorageFilter`` documents, on every
/// shipped context: `== nil` holds, `== x` and every ordering do not, `!=` does, and a sort leaves
/// every entity tied. Predicates on container properties are never handed to the context and
/// still give the full scan's answers.
@Suite("Filters on missing and container fields")
struct MissingAndContainerFieldTests {
    struct Place: Codable, Equatable {
        var city: String
    }

    struct Crate: Storable, Equatable {
        var id: String
        var size: Int
        var tags: [String]
        var place: Place
        var label: String?
    }

    static let crates = [
        Crate(id: "a", size: 3, tags: ["red"], place: Place(city: "Oslo"), label: nil),
        Crate(id: "b", size: 1, tags: [], place: Place(city: "Rome"), label: "fragile"),
        Crate(id: "c", size: 2, tags: ["red", "blue"], place: Place(city: "Oslo"), label: ""),
    ]

    /// The ids `filter` selects through each query requirement: fetch, count, and the ids a
    /// delete removes (deleted from a fresh copy of the store).
    func selections(_ filter: StorageFilter, on factory: ContextFactory) throws -> (
        fetched: Set<String>, counted: Int, deleted: Set<String>
    ) {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        try context.save(Self.crates)
        let fetched = Set(try context.fetch(Crate.self, matching: StorageQuery(filter: filter)).map(\.id))
        let counted = try context.count(Crate.self, matching: filter)
        try context.delete(Crate.self, matching: filter)
        let left = Set(try context.fetchAll(Crate.self).map(\.id))
        return (fetched, counted, Set(Self.crates.map(\.id)).subtracting(left))
    }

    func expectSelection(
        _ filter: StorageFilter, selects ids: Set<String>, on factory: ContextFactory,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let found = try selections(filter, on: factory)
        #expect(found.fetched == ids, "\(factory) fetch \(filter)", sourceLocation: sourceLocation)
        #expect(found.counted == ids.count, "\(factory) count \(filter)", sourceLocation: sourceLocation)
        #expect(found.deleted == ids, "\(factory) delete \(filter)", sourceLocation: sourceLocation)
    }

    static let everyID: Set<String> = ["a", "b", "c"]

    @Test(arguments: ContextFactory.everyShipped)
    func aMissingFieldIsNilToEveryComparison(_ factory: ContextFactory) throws {
        for missing: FieldPath in ["weight", "place.zip", "size.deeper", "label.inner"] {
            try expectSelection(.isNull(missing), selects: Self.everyID, on: factory)
            try expectSelection(.compare(missing, .equal, .int(1)), selects: [], on: factory)
            try expectSelection(.compare(missing, .notEqual, .int(1)), selects: Self.everyID, on: factory)
            try expectSelection(.compare(missing, .less, .int(1)), selects: [], on: factory)
            try expectSelection(.compare(missing, .greaterOrEqual, .string("")), selects: [], on: factory)
            try expectSelection(.not(.compare(missing, .less, .int(1))), selects: Self.everyID, on: factory)
            try expectSelection(.hasPrefix(missing, ""), selects: [], on: factory)
            try expectSelection(.contains(missing, ""), selects: [], on: factory)
            try expectSelection(.isIn(missing, [.int(1), .null]), selects: Self.everyID, on: factory)
        }
    }

    @Test(arguments: ContextFactory.everyShipped)
    func aContainerFieldIsNilToEveryComparison(_ factory: ContextFactory) throws {
        for container: FieldPath in ["tags", "place"] {
            try expectSelection(.isNull(container), selects: Self.everyID, on: factory)
            try expectSelection(.compare(container, .equal, .string("red")), selects: [], on: factory)
            try expectSelection(.compare(container, .greater, .string("")), selects: [], on: factory)
            try expectSelection(.hasPrefix(container, ""), selects: [], on: factory)
            try expectSelection(.contains(container, "red"), selects: [], on: factory)
            try expectSelection(.not(.isNull(container)), selects: [], on: factory)
        }
        // A path into the nested struct reads its field.
        try expectSelection(.compare("place.city", .equal, .string("Oslo")), selects: ["a", "c"], on: factory)
    }

    @Test(arguments: ContextFactory.everyShipped)
    func aNilOptionalIsNilAndAnEmptyStringIsNot(_ factory: ContextFactory) throws {
        try expectSelection(.isNull("label"), selects: ["a"], on: factory)
        try expectSelection(.hasPrefix("label", ""), selects: ["b", "c"], on: factory)
        try expectSelection(.compare("label", .equal, .string("")), selects: ["c"], on: factory)
    }

    @Test(arguments: ContextFactory.everyShipped)
    func aSortOnAMissingOrContainerFieldLeavesEveryEntityTied(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save(Self.crates)
        for field: FieldPath in ["weight", "tags", "place"] {
            let tiedThenBySize = StorageQuery(sort: [StorageSortKey(field), StorageSortKey("size", order: .reverse)])
            #expect(
                try fresh.context.fetch(Crate.self, matching: tiedThenBySize).map(\.id) == ["a", "c", "b"],
                "\(factory) \(field)")
            let page = StorageQuery(
                sort: [StorageSortKey(field, order: .reverse), StorageSortKey("size")], limit: 2, offset: 1)
            #expect(try fresh.context.fetch(Crate.self, matching: page).map(\.id) == ["c", "a"], "\(factory) \(field)")
        }
    }

    @Test(arguments: ContextFactory.everyShipped)
    func predicatesOnContainerPropertiesAreEvaluatedOnValuesAndAgreeWithTheFullScan(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = QueryRecordingContext(fresh.context)
        let dao = BaseDao<Crate, Crate>(context: context)
        try dao.persist(Self.crates)
        let oslo = Place(city: "Oslo")
        let predicates = [
            #Predicate<Crate> { $0.tags.contains("red") },
            #Predicate<Crate> { $0.tags.isEmpty || $0.size > 2 },
            #Predicate<Crate> { $0.place == oslo },
            #Predicate<Crate> { $0.place.city == "Oslo" && $0.tags.count == 2 },
        ]
        let all = try dao.read()
        for predicate in predicates {
            let expected = try all.filter(predicate.evaluate)
            _ = context.takeRequests()
            #expect(Set(try dao.read(where: predicate).map(\.id)) == Set(expected.map(\.id)), "\(factory)")
            #expect(try dao.count(where: predicate) == expected.count, "\(factory)")
            for case .fetch(let query) in context.takeRequests() {
                let fields = query.filter?.fields ?? []
                #expect(
                    !fields.contains("tags") && !fields.contains("place"), "\(factory): \(fields) handed to the context"
                )
            }
        }
    }
}
