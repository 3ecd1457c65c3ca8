import DAOKit
import DAOKitTesting
import Testing

/// The default `save(_:mode:)` that third-party contexts get when they implement only the
/// original six requirements.
@Suite("SaveMode default implementation")
struct SaveModeTests {
    @Test func aMinimalContextStillKeepsTheContract() throws {
        try StorageContextContract.verify(makeContext: { MinimalContext() })
    }

    @Test func insertRefusesAStoredIDWithoutWriting() throws {
        let context = MinimalContext()
        try context.save([FixtureNoteEntity(id: "a", body: "old")])
        let error = try #require(throws: StorageError.self) {
            try context.save(
                [FixtureNoteEntity(id: "b", body: ""), FixtureNoteEntity(id: "a", body: "new")], mode: .insert)
        }
        #expect(error.kind == .duplicateID)
        #expect(error.key == "a")
        #expect(try context.fetchAll(FixtureNoteEntity.self) == [FixtureNoteEntity(id: "a", body: "old")])
    }

    @Test func updateRefusesAMissingIDWithoutWriting() throws {
        let context = MinimalContext()
        let error = try #require(throws: StorageError.self) {
            try context.save([FixtureNoteEntity(id: "a", body: "")], mode: .update)
        }
        #expect(error.kind == .missingID)
        #expect(error.entityName == "FixtureNoteEntity")
        #expect(try context.count(FixtureNoteEntity.self) == 0)
    }

    @Test func upsertIsPlainSave() throws {
        let context = MinimalContext()
        try context.save([FixtureNoteEntity(id: "a", body: "")], mode: .upsert)
        try context.save([FixtureNoteEntity(id: "a", body: "again")], mode: .upsert)
        #expect(try context.fetch(FixtureNoteEntity.self, id: "a")?.body == "again")
    }
}

/// A third-party context that implements only the six original requirements, by delegation.
private final class MinimalContext: StorageContext {
    private let inner = InMemoryStorageContext()
    func save<E: Storable>(_ entities: [E]) throws { try inner.save(entities) }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { try inner.fetch(type, id: id) }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { try inner.fetchAll(type) }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { try inner.delete(type, ids: ids) }
    func deleteAll<E: Storable>(_ type: E.Type) throws { try inner.deleteAll(type) }
    func count<E: Storable>(_ type: E.Type) throws -> Int { try inner.count(type) }
}
