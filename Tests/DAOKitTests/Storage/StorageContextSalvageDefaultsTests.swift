import DAOKit
import DAOKitTesting
import Foundation
import Testing

/// The defaults of `fetchReadable`, `storedKeys` and `delete(_:storageKeys:)` that a context
/// written before them gets: they compile, work on a sound store, and name a bad record they
/// cannot read past.
@Suite("StorageContext salvage defaults")
struct StorageContextSalvageDefaultsTests {
    @Test func aContextWithOnlyTheOriginalRequirementsKeepsTheWholeContract() throws {
        try StorageContextContract.verify(makeContext: { OriginalRequirementsContext() })
    }

    @Test func theDefaultFetchReadableReadsASoundStoreWhole() throws {
        let context = OriginalRequirementsContext()
        try context.save([FixtureNoteEntity(id: "a", body: "1"), FixtureNoteEntity(id: "b", body: "2")])
        let found = try context.fetchReadable(FixtureNoteEntity.self)
        #expect(found.values.map(\.id).sorted() == ["a", "b"])
        #expect(found.isComplete)
        #expect(Set(try context.storedKeys(FixtureNoteEntity.self)) == ["a", "b"])
    }

    @Test func theDefaultsThrowTheErrorNamingAnUndecodableRecord() throws {
        let context = OriginalRequirementsContext()
        try ReadableRecordsTests.plantTasks(in: context)
        let readError = try #require(throws: StorageError.self) { try context.fetchReadable(FixtureTaskEntity.self) }
        #expect(readError.key == "3")
        #expect(readError.kind == .decodingFailed)
        let listError = try #require(throws: StorageError.self) { try context.storedKeys(FixtureTaskEntity.self) }
        #expect(listError.key == "3")
    }

    @Test func theDefaultDeleteByStorageKeysDeletesKeysThatSpellAnIDAndIgnoresTheRest() throws {
        let context = OriginalRequirementsContext()
        try context.save((1...3).map { FixtureCounterEntity(id: $0, value: $0) })
        try context.delete(FixtureCounterEntity.self, storageKeys: ["1", "not a number", "3"])
        #expect(try context.fetchAll(FixtureCounterEntity.self).map(\.id) == [2])
    }
}

/// A third-party context written before the salvage requirements existed: it implements only the
/// original six, by delegation, and relies on every default.
private final class OriginalRequirementsContext: StorageContext {
    private let inner = InMemoryStorageContext()
    func save<E: Storable>(_ entities: [E]) throws { try inner.save(entities) }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { try inner.fetch(type, id: id) }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { try inner.fetchAll(type) }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { try inner.delete(type, ids: ids) }
    func deleteAll<E: Storable>(_ type: E.Type) throws { try inner.deleteAll(type) }
    func count<E: Storable>(_ type: E.Type) throws -> Int { try inner.count(type) }
}
