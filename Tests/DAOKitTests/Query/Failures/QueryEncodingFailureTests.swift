import DAOKit
import DAOKitInternals
import DAOKitTestSupport
import Foundation
import Testing

/// A context reads a query's fields through the entity's own `encode(to:)`; when that throws
/// during a query, the query throws ``StorageError`` of kind `.encodingFailed` naming the entity
/// and the record, on every context that evaluates entities it decoded from its store, and nothing
/// is deleted. The memory context copies entities out through the same `encode(to:)`, so it
/// refuses the record as it does for every read of it (`.decodingFailed`) unless it evaluates the
/// filter first.
@Suite("Queries over an entity whose encoding throws", .serialized)
struct QueryEncodingFailureTests {
    struct Fragile: Codable, Identifiable, Equatable {
        var id: String
        var group: Int
        var poisoned: Bool
    }

    /// Encodes normally until ``armed``; then the poisoned one throws.
    struct FragileEntity: Storable {
        static let armed = Locked(false)
        var id: String
        var group: Int
        var poisoned: Bool

        func encode(to encoder: any Encoder) throws {
            if poisoned && Self.armed.withLock({ $0 }) {
                throw EncodingError.invalidValue(id, .init(codingPath: [], debugDescription: "poisoned entity"))
            }
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(group, forKey: .group)
            try container.encode(poisoned, forKey: .poisoned)
        }
    }

    /// A DAO over a fresh context holding two plain values and the poisoned one, its key paths
    /// proven, and encoding then armed (disarmed again by the returned clean-up).
    func armedStore(_ factory: ContextFactory) throws -> (BaseDao<Fragile, FragileEntity>, () -> Void) {
        let fresh = try factory.make()
        let dao = BaseDao<Fragile, FragileEntity>(context: fresh.context)
        try dao.persist([
            Fragile(id: "fine", group: 1, poisoned: false), Fragile(id: "also", group: 2, poisoned: false),
            Fragile(id: "bad", group: 2, poisoned: true),
        ])
        _ = try dao.count(where: #Predicate { $0.group == 2 })  // proves `group` while encoding works
        FragileEntity.armed.withLock { $0 = true }
        return (
            dao,
            {
                FragileEntity.armed.withLock { $0 = false }
                fresh.cleanUp()
            }
        )
    }

    func expectNamesThePoisonedRecord(
        _ error: StorageError, _ factory: ContextFactory, _ call: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if factory.description == "memory" {
            #expect(
                error.kind == .encodingFailed || error.kind == .decodingFailed, "\(call): \(error)",
                sourceLocation: sourceLocation)
        } else {
            #expect(error.kind == .encodingFailed, "\(factory) \(call): \(error)", sourceLocation: sourceLocation)
        }
        #expect(error.entityName == "FragileEntity", "\(factory) \(call): \(error)", sourceLocation: sourceLocation)
        #expect(error.key == "bad", "\(factory) \(call): \(error)", sourceLocation: sourceLocation)
        // The entity's own error, directly or inside the memory context's MappingError.
        #expect(
            error.underlyingError.map { String(describing: $0).contains("poisoned entity") } == true,
            "\(factory) \(call): \(error)", sourceLocation: sourceLocation)
    }

    @Test(arguments: ContextFactory.evaluatingInSwift)
    func aContextQueryThrowsEncodingFailedNamingTheRecord(_ factory: ContextFactory) throws {
        let (dao, cleanUp) = try armedStore(factory)
        defer { cleanUp() }
        let filter = StorageFilter.compare("group", .equal, .int(1))
        let context = dao.context
        let fetchError = try #require(throws: StorageError.self) {
            try context.fetch(FragileEntity.self, matching: StorageQuery(filter: filter))
        }
        expectNamesThePoisonedRecord(fetchError, factory, "fetch(matching:)")
        let countError = try #require(throws: StorageError.self) {
            try context.count(FragileEntity.self, matching: filter)
        }
        expectNamesThePoisonedRecord(countError, factory, "count(matching:)")
        let deleteError = try #require(throws: StorageError.self) {
            try context.delete(FragileEntity.self, matching: filter)
        }
        expectNamesThePoisonedRecord(deleteError, factory, "delete(matching:)")
        #expect(try context.count(FragileEntity.self) == 3, "\(factory): delete(matching:) removed something")
    }

    @Test(arguments: ContextFactory.evaluatingInSwift)
    func aPushedDaoQueryThrowsEncodingFailedNamingTheRecordAndErasesNothing(_ factory: ContextFactory) throws {
        let (dao, cleanUp) = try armedStore(factory)
        defer { cleanUp() }
        let groupOne = #Predicate<Fragile> { $0.group == 1 }
        let readError = try #require(throws: StorageError.self) { try dao.read(where: groupOne) }
        expectNamesThePoisonedRecord(readError, factory, "read(where:)")
        let countError = try #require(throws: StorageError.self) { try dao.count(where: groupOne) }
        expectNamesThePoisonedRecord(countError, factory, "count(where:)")
        let eraseError = try #require(throws: StorageError.self) { try dao.erase(where: groupOne) }
        expectNamesThePoisonedRecord(eraseError, factory, "erase(where:)")
        #expect(try dao.count() == 3, "\(factory): erase(where:) removed something")
        #expect(eraseError.description.contains("FragileEntity \"bad\""), "\(factory): \(eraseError)")
    }

    @Test(arguments: ContextFactory.evaluatingInSwift)
    func aSortedPageOverThePoisonedRecordThrowsToo(_ factory: ContextFactory) throws {
        let (dao, cleanUp) = try armedStore(factory)
        defer { cleanUp() }
        let error = try #require(throws: StorageError.self) {
            try dao.read(where: #Predicate { $0.group == 2 }, sortedBy: [SortDescriptor(\.id)], limit: 1)
        }
        expectNamesThePoisonedRecord(error, factory, "read(where:sortedBy:limit:)")
    }
}
