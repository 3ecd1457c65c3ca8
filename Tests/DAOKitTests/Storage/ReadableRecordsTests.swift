import DAOKit
import DAOKitFileStore
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

/// One undecodable record among good ones, in every shipped context: `fetchReadable` reads the
/// others and reports it, `storedKeys` lists it, `delete(_:storageKeys:)` removes it.
@Suite("Reading past unreadable records")
struct ReadableRecordsTests {
    static let factories: [ContextFactory] = ContextFactory.core + [.fileJSON]

    @Test(arguments: factories)
    func fetchReadableReturnsTheGoodRecordsAndTheUndecodableOneBesideThem(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try Self.plantTasks(in: fresh.context)
        let found = try fresh.context.fetchReadable(FixtureTaskEntity.self)
        #expect(found.values.map(\.id).sorted() == [1, 2, 4])
        #expect(found.isComplete == false)
        let failure = try #require(found.failures.first)
        #expect(found.failures.count == 1)
        #expect(failure.storageKey == "3")
        #expect(failure.id == 3)
        #expect(failure.error.kind == .decodingFailed)
        #expect(failure.error.entityName == "FixtureTask")
        #expect(failure.error.key == "3")
        #expect(failure.error.underlyingError != nil)
        // One short line per record.
        #expect(!failure.description.contains("\n"))
    }

    @Test(arguments: factories)
    func storedKeysListsTheUndecodableRecordToo(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try Self.plantTasks(in: fresh.context)
        #expect(Set(try fresh.context.storedKeys(FixtureTaskEntity.self)) == ["1", "2", "3", "4"])
    }

    @Test(arguments: factories)
    func deletingTheUndecodableRecordByKeyMakesFetchAllWorkAgain(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try Self.plantTasks(in: fresh.context)
        #expect(throws: StorageError.self) { try fresh.context.fetchAll(FixtureTaskEntity.self) }
        try fresh.context.delete(FixtureTaskEntity.self, storageKeys: ["3", "unknown"])
        #expect(try fresh.context.fetchAll(FixtureTaskEntity.self).map(\.id).sorted() == [1, 2, 4])
        #expect(try fresh.context.count(FixtureTaskEntity.self) == 3)
    }

    @Test(arguments: factories)
    func aRecordUnderAKeyThatIsNotAnIDCanStillBeListedAndDeleted(_ factory: ContextFactory) throws {
        // An entity whose id type changed from String to Int leaves records no Int names.
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([LegacyCounter(id: "first", value: 1)])
        try fresh.context.save([FixtureCounterEntity(id: 2, value: 2)])
        let found = try fresh.context.fetchReadable(FixtureCounterEntity.self)
        #expect(found.values.map(\.id) == [2])
        #expect(found.failures.map(\.storageKey) == ["first"])
        #expect(found.failures.first?.id == nil)
        #expect(Set(try fresh.context.storedKeys(FixtureCounterEntity.self)) == ["first", "2"])
        try fresh.context.delete(FixtureCounterEntity.self, storageKeys: ["first"])
        #expect(try fresh.context.fetchAll(FixtureCounterEntity.self).map(\.id) == [2])
    }

    static func plantTasks(in context: any StorageContext) throws {
        try context.save([1, 2, 4].map { FixtureTaskEntity(id: $0, title: "task \($0)", status: .open) })
        try context.save([FixtureTaskRecord(id: 3, title: "from a newer version", status: "archived")])
    }
}

/// ``FixtureCounterEntity`` as an earlier version stored it, with `String` ids.
private struct LegacyCounter: Storable {
    static var entityName: String { FixtureCounterEntity.entityName }
    var id: String
    var value: Int
}
