import DAOKit
import DAOKitTesting
import Foundation
import Testing

/// `BaseDao.readReadable()`, `storedIDs()` and `erase(storageKeys:)`: a bad record does not hold
/// the others hostage through the DAO either.
@Suite("BaseDao reading past unreadable records")
struct BaseDaoSalvageTests {
    private func plantedContext() throws -> InMemoryStorageContext {
        let context = InMemoryStorageContext()
        try context.save(
            [1, 2, 4].map { FixtureTaskEntity(id: $0, title: "task \($0)", status: $0 == 2 ? .done : .open) })
        try context.save([FixtureTaskRecord(id: 3, title: "newer", status: "archived")])
        return context
    }

    @Test func readReadableMapsTheGoodRecordsAndReportsTheUndecodableOne() throws {
        let dao = BaseDao<FixtureTask, FixtureTaskEntity>(context: try plantedContext())
        #expect(throws: StorageError.self) { try dao.read() }
        let found = try dao.readReadable()
        #expect(found.values.map(\.id).sorted() == [1, 2, 4])
        #expect(found.failures.map(\.id) == [3])
        #expect(found.failures.first?.error.kind == .decodingFailed)
    }

    @Test func aRecordThatDecodesButDoesNotMapToTheDomainIsAFailureCarryingTheMappingError() throws {
        let dao = BaseDao<OpenTask, FixtureTaskEntity>(context: try plantedContext())
        let found = try dao.readReadable()
        #expect(found.values.map(\.id).sorted() == [1, 4])
        #expect(Set(found.failures.compactMap(\.id)) == [2, 3])
        let mappingFailure = try #require(found.failures.first { $0.id == 2 })
        #expect(mappingFailure.error.kind == .decodingFailed)
        #expect(mappingFailure.error.entityName == "FixtureTask")
        #expect(mappingFailure.error.key == "2")
        #expect(mappingFailure.error.underlyingError is MappingError)
    }

    @Test func storedIDsListsEveryRecordReadableOrNot() throws {
        let dao = BaseDao<FixtureTask, FixtureTaskEntity>(context: try plantedContext())
        #expect(try dao.storedIDs().sorted() == [1, 2, 3, 4])
    }

    @Test func eraseByStorageKeysRemovesTheUndecodableRecordAndReadWorksAgain() throws {
        let dao = BaseDao<FixtureTask, FixtureTaskEntity>(context: try plantedContext())
        try dao.erase(storageKeys: try dao.readReadable().failures.compactMap(\.storageKey))
        #expect(try dao.read().map(\.id).sorted() == [1, 2, 4])
        #expect(try dao.readReadable().isComplete)
    }

    @Test func aContextThatCannotListItsRecordsMakesReadReadableThrow() throws {
        let store = ScriptedKeyValueStore()
        let dao = BaseDao<FixtureTask, FixtureTaskEntity>(context: KeyValueStorageContext(store: store))
        try dao.persist(FixtureTask(id: 1, title: "t", status: .open))
        store.failsReading = { $0.hasPrefix("list ") }
        let error = try #require(throws: StorageError.self) { try dao.readReadable() }
        #expect(error.kind == .io("refused to list DAOKit/FixtureTask/"))
        #expect(throws: StorageError.self) { try dao.storedIDs() }
    }
}

/// A domain that knows only open tasks: a stored `.done` task does not map to it.
private struct OpenTask: Codable, Identifiable {
    enum Status: String, Codable { case open }
    var id: Int
    var title: String
    var status: Status
}
