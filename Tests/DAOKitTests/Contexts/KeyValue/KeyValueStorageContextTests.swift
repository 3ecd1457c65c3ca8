import DAOKit
import DAOKitTesting
import Foundation
import Testing

@Suite("KeyValueStorageContext")
struct KeyValueStorageContextTests {
    let message = FixtureMessageEntity(
        id: UUID(uuidString: "6B0E4A4E-8D3C-4C57-9E0B-2C54A6F7D001")!, dialogID: "family", author: "ann",
        text: "a/b \"quoted\"", date: Date(timeIntervalSinceReferenceDate: 0.5), isRead: false, priority: 2)

    /// The layout is a stored format: the checksum is pinned too (the CRC-32C of
    /// `FixtureMessageEntity/6B0E…D001`, a NUL and `"entity":…}`).
    @Test func aRecordIsSortedKeyJSONSealedWithItsChecksumUnderNamespaceEntityAndKey() throws {
        let store = InMemoryKeyValueStore()
        try KeyValueStorageContext(store: store, namespace: "app").save([message])
        let record = try #require(store.contents["app/FixtureMessageEntity/6B0E4A4E-8D3C-4C57-9E0B-2C54A6F7D001"])
        #expect(
            record
                == #"{"daokit_crc32c":"1a840369","entity":{"author":"ann","date":0.5,"dialogID":"family","id":"6B0E4A4E-8D3C-4C57-9E0B-2C54A6F7D001","isRead":false,"priority":2,"text":"a/b \"quoted\""}}"#
        )
        #expect(store.contents.count == 1)
    }

    @Test func theDefaultNamespaceIsDAOKit() throws {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "n", body: "")])
        #expect(context.namespace == "DAOKit")
        #expect(Set(store.contents.keys) == ["DAOKit/FixtureNoteEntity/n"])
    }

    @Test func awkwardIDsBecomeEscapedKeysThatListBackVerbatim() throws {
        let store = InMemoryKeyValueStore()
        let ids = ["a/b", "..", "", "\0", "日本"]
        let context = KeyValueStorageContext(store: store, namespace: "n/s")
        try context.save(ids.map { FixtureNoteEntity(id: $0, body: "") })
        #expect(
            Set(store.contents.keys) == [
                "n%2Fs/FixtureNoteEntity/a%2Fb", "n%2Fs/FixtureNoteEntity/..",
                "n%2Fs/FixtureNoteEntity/", "n%2Fs/FixtureNoteEntity/%00", "n%2Fs/FixtureNoteEntity/%E6%97%A5%E6%9C%AC",
            ])
        #expect(Set(try context.fetchAll(FixtureNoteEntity.self).map(\.id)) == Set(ids))
    }

    @Test func namespacesShareAStoreWithoutSeeingEachOther() throws {
        let store = InMemoryKeyValueStore()
        let first = KeyValueStorageContext(store: store, namespace: "first")
        let second = KeyValueStorageContext(store: store, namespace: "second")
        try first.save([FixtureNoteEntity(id: "same", body: "first")])
        try second.save([FixtureNoteEntity(id: "same", body: "second")])
        try first.deleteAll(FixtureNoteEntity.self)
        #expect(try first.count(FixtureNoteEntity.self) == 0)
        #expect(try second.fetch(FixtureNoteEntity.self, id: "same")?.body == "second")
    }

    @Test func aNewContextOnTheSameStoreReadsWhatAnEarlierOneWrote() throws {
        let store = InMemoryKeyValueStore()
        try KeyValueStorageContext(store: store).save([message, message.with(id: UUID())])
        let reopened = KeyValueStorageContext(store: store)
        #expect(try reopened.count(FixtureMessageEntity.self) == 2)
        #expect(try reopened.fetch(FixtureMessageEntity.self, id: message.id) == message)
    }

    @Test func aContextNoticesWritesAnotherContextMadeInBetween() throws {
        let store = InMemoryKeyValueStore()
        let first = KeyValueStorageContext(store: store)
        let second = KeyValueStorageContext(store: store)
        try first.save([FixtureNoteEntity(id: "1", body: "")])
        #expect(try second.count(FixtureNoteEntity.self) == 1)
        try second.save([FixtureNoteEntity(id: "2", body: "")])
        try first.save([FixtureNoteEntity(id: "3", body: "")])
        #expect(try second.fetchAll(FixtureNoteEntity.self).map(\.id) == ["1", "2", "3"])
        try second.delete(FixtureNoteEntity.self, ids: ["1"])
        #expect(try first.fetch(FixtureNoteEntity.self, id: "1") == nil)
    }

    @Test func fetchAllListsThePrefixAndReadsOnlyThatTypesRecords() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save((0..<3).map { FixtureNoteEntity(id: "\($0)", body: "") })
        try context.save((0..<50).map { FixtureTagEntity(id: "\($0)", label: "") })
        store.forgetReads()
        #expect(try context.fetchAll(FixtureNoteEntity.self).count == 3)
        #expect(
            store.reads == [
                "list DAOKit/FixtureNoteEntity/", "DAOKit/FixtureNoteEntity/0",
                "DAOKit/FixtureNoteEntity/1", "DAOKit/FixtureNoteEntity/2",
            ])
        store.forgetReads()
        #expect(try context.count(FixtureTagEntity.self) == 50)
        #expect(store.reads == ["list DAOKit/FixtureTagEntity/"])
    }

    @Test func fetchAllReturnsEntitiesOrderedByStoreKey() throws {
        let context = KeyValueStorageContext(store: InMemoryKeyValueStore())
        try context.save([FixtureCounterEntity(id: 3, value: 0), FixtureCounterEntity(id: 1, value: 0)])
        try context.save([FixtureCounterEntity(id: 20, value: 0), FixtureCounterEntity(id: 3, value: 1)])
        // Store keys compare as text, so "20" sorts before "3".
        #expect(try context.fetchAll(FixtureCounterEntity.self).map(\.id) == [1, 20, 3])
    }

    @Test func deletingEverythingRemovesEveryRecordOfTheType() throws {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "a", body: ""), FixtureNoteEntity(id: "b", body: "")])
        try context.delete(FixtureNoteEntity.self, ids: ["a"])
        #expect(Set(store.contents.keys) == ["DAOKit/FixtureNoteEntity/b"])
        try context.deleteAll(FixtureNoteEntity.self)
        #expect(store.contents.isEmpty)
    }

    @Test func aValueUnderARecordKeyIsStoredWhoeverWroteIt() throws {
        // No index decides what is stored: a record another process wrote counts at once.
        let store = InMemoryKeyValueStore([
            "DAOKit/FixtureNoteEntity/theirs": #"{"body":"written elsewhere","id":"theirs"}"#
        ])
        let context = KeyValueStorageContext(store: store)
        #expect(try context.fetch(FixtureNoteEntity.self, id: "theirs")?.body == "written elsewhere")
        #expect(try context.count(FixtureNoteEntity.self) == 1)
        let error = try #require(throws: StorageError.self) {
            try context.save([FixtureNoteEntity(id: "theirs", body: "mine")], mode: .insert)
        }
        #expect(error.kind == .duplicateID)
    }

    @Test func aBatchLargerThanTheStoresFlushIntervalIsFlushedAlongTheWay() throws {
        // UserDefaults on Linux slows down with every write it holds unsynchronized.
        let store = ScriptedKeyValueStore()
        store.writesBetweenFlushes = 10
        let context = KeyValueStorageContext(store: store)
        try context.save((0..<25).map { FixtureNoteEntity(id: "\($0)", body: "") })
        #expect(store.flushes == 3)
        try context.deleteAll(FixtureNoteEntity.self)
        #expect(store.flushes == 6)
        #expect(store.values.isEmpty)
        try context.save((0..<10).map { FixtureNoteEntity(id: "\($0)", body: "") })
        #expect(store.flushes == 7)
    }

    @Test func everyOperationReadsAllItNeedsBeforeItsFirstWrite() throws {
        // UserDefaults rebuilds its merged view on the first read after a write: reads between
        // writes made erasing 10,000 records take 17 s instead of 1.
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        for operation in ["save", "delete", "deleteAll"] {
            try context.save((0..<3).map { FixtureNoteEntity(id: "\($0)", body: "old") })
            store.forgetReads()
            switch operation {
            case "save": try context.save((0..<3).map { FixtureNoteEntity(id: "\($0)", body: "new") })
            case "delete": try context.delete(FixtureNoteEntity.self, ids: ["0", "1", "2"])
            default: try context.deleteAll(FixtureNoteEntity.self)
            }
            let firstWrite = try #require(store.operations.firstIndex { !$0.hasPrefix("read ") }, "\(operation)")
            #expect(
                store.operations[firstWrite...].allSatisfy { !$0.hasPrefix("read ") },
                "\(operation): \(store.operations)")
            #expect(store.operations.filter { !$0.hasPrefix("read ") }.count == 3, "\(operation)")
        }
    }

    @Test func everyOperationThatWritesFlushesTheStoreOnce() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "a", body: ""), FixtureNoteEntity(id: "b", body: "")])
        #expect(store.flushes == 1)
        _ = try context.fetchAll(FixtureNoteEntity.self)
        #expect(store.flushes == 1)
        try context.delete(FixtureNoteEntity.self, ids: ["a"])
        try context.delete(FixtureNoteEntity.self, ids: ["unknown"])
        try context.deleteAll(FixtureNoteEntity.self)
        #expect(store.flushes == 3)
    }
}

extension FixtureMessageEntity {
    fileprivate func with(id: UUID) -> FixtureMessageEntity {
        var copy = self
        copy.id = id
        return copy
    }
}
