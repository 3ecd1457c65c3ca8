import DAOKit
import DAOKitTesting
import Foundation
import Testing

/// Damaged stores and failing stores: each gives a StorageError naming what failed, and the
/// store is left as it was.
@Suite("KeyValueStorageContext failures")
struct KeyValueStorageFailureTests {
    let notes = (1...3).map { FixtureNoteEntity(id: "\($0)", body: "note \($0)") }

    private func storeWithNotes() throws -> (InMemoryKeyValueStore, KeyValueStorageContext) {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save(notes)
        return (store, context)
    }

    // MARK: Damaged records

    @Test func aRecordThatIsNotJSONIsACorruptRecordNamingEntityKeyAndStoreKey() throws {
        let (store, context) = try storeWithNotes()
        store.setString("{\"body\": \"trunc", forKey: "DAOKit/FixtureNoteEntity/2")
        let error = try #require(throws: StorageError.self) { try context.fetch(FixtureNoteEntity.self, id: "2") }
        #expect(error.kind == .corruptRecord("not valid JSON"))
        #expect(error.entityName == "FixtureNoteEntity")
        #expect(error.key == "2")
        #expect(error.location == "DAOKit/FixtureNoteEntity/2")
        #expect(error.description.hasPrefix(#"FixtureNoteEntity "2": corrupt record (not valid JSON) at DAOKit/FixtureNoteEntity/2"#))
        #expect(error.underlyingError is DecodingError)
    }

    @Test func aCorruptRecordLeavesTheOthersReadable() throws {
        let (store, context) = try storeWithNotes()
        store.setString("garbage", forKey: "DAOKit/FixtureNoteEntity/2")
        #expect(try context.fetch(FixtureNoteEntity.self, id: "1") == notes[0])
        #expect(try context.fetch(FixtureNoteEntity.self, id: "3") == notes[2])
        #expect(try context.count(FixtureNoteEntity.self) == 3)
        let error = try #require(throws: StorageError.self) { try context.fetchAll(FixtureNoteEntity.self) }
        #expect(error.key == "2")
        // Deleting or overwriting the bad record repairs the listing.
        try context.delete(FixtureNoteEntity.self, ids: ["2"])
        #expect(try context.fetchAll(FixtureNoteEntity.self) == [notes[0], notes[2]])
    }

    @Test func jsonOfTheWrongShapeIsADecodingFailure() throws {
        let (store, context) = try storeWithNotes()
        store.setString(#"{"id":"2","title":"no body"}"#, forKey: "DAOKit/FixtureNoteEntity/2")
        let error = try #require(throws: StorageError.self) { try context.fetch(FixtureNoteEntity.self, id: "2") }
        #expect(error.kind == .decodingFailed)
        #expect(error.entityName == "FixtureNoteEntity")
        #expect(error.key == "2")
        #expect(error.location == "DAOKit/FixtureNoteEntity/2")
        #expect(error.description.contains("the record could not be decoded"))
        #expect(try context.fetch(FixtureNoteEntity.self, id: "3") == notes[2])
    }

    @Test func aListedKeyWithoutAValueIsACorruptRecord() throws {
        let (store, context) = try storeWithNotes()
        store.removeObject(forKey: "DAOKit/FixtureNoteEntity/1")
        let error = try #require(throws: StorageError.self) { try context.fetch(FixtureNoteEntity.self, id: "1") }
        #expect(error.kind == .corruptRecord("listed in the index, but the store has no string under its key"))
        #expect(error.key == "1")
        #expect(try context.fetch(FixtureNoteEntity.self, id: "2") == notes[1])
    }

    @Test func aDamagedIndexIsACorruptRecordAtTheIndexKey() throws {
        let (store, context) = try storeWithNotes()
        store.setString(#"{"not":"an array"}"#, forKey: "DAOKit/FixtureNoteEntity")
        let error = try #require(throws: StorageError.self) { try context.count(FixtureNoteEntity.self) }
        #expect(error.kind == .corruptRecord("the index is not a JSON array of strings"))
        #expect(error.entityName == "FixtureNoteEntity")
        #expect(error.key == nil)
        #expect(error.location == "DAOKit/FixtureNoteEntity")
        #expect(throws: StorageError.self) { try context.save([FixtureNoteEntity(id: "4", body: "")]) }
        #expect(store.string(forKey: "DAOKit/FixtureNoteEntity/4") == nil)
    }

    @Test func anIndexListingAKeyTwiceCountsItOnce() throws {
        let (store, context) = try storeWithNotes()
        store.setString(#"["1","2","3","2"]"#, forKey: "DAOKit/FixtureNoteEntity")
        #expect(try context.count(FixtureNoteEntity.self) == 3)
        #expect(try context.fetchAll(FixtureNoteEntity.self) == notes)
    }

    // MARK: Encoding

    @Test func anEntityJSONCannotEncodeIsAnEncodingFailureAndTheBatchWritesNothing() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        let batch = [Reading(id: 1, value: 1.5), Reading(id: 2, value: .nan), Reading(id: 3, value: 2)]
        let error = try #require(throws: StorageError.self) { try context.save(batch) }
        #expect(error.kind == .encodingFailed)
        #expect(error.entityName == "Reading")
        #expect(error.key == "2")
        #expect(error.location == "DAOKit/Reading/2")
        #expect(error.underlyingError is EncodingError)
        #expect(error.description.contains("the entity could not be encoded"))
        #expect(store.values.isEmpty)
        #expect(store.reads.isEmpty)
    }

    // MARK: Failing stores

    @Test func aWriteFailingMidBatchRollsBackAndIsAnIOError() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "1", body: "old 1"), FixtureNoteEntity(id: "2", body: "old 2")])
        let before = store.values
        store.failsWriting = { $0 == "DAOKit/FixtureNoteEntity/3" }  // after replacing "1" and "2"
        let batch = (1...4).map { FixtureNoteEntity(id: "\($0)", body: "new \($0)") }
        let error = try #require(throws: StorageError.self) { try context.save(batch) }
        guard case let .io(message) = error.kind else {
            Issue.record("expected an I/O error, got \(error.kind)")
            return
        }
        #expect(message == "refused to write DAOKit/FixtureNoteEntity/3")
        #expect(error.key == "3")
        #expect(error.location == "DAOKit/FixtureNoteEntity/3")
        #expect(error.underlyingError is ScriptedKeyValueStore.Refused)
        #expect(store.values == before)
        #expect(try context.fetchAll(FixtureNoteEntity.self).map(\.body) == ["old 1", "old 2"])
    }

    @Test func anIndexWriteFailingRollsBackTheRecords() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "1", body: "old")])
        let before = store.values
        store.failsWriting = { $0 == "DAOKit/FixtureNoteEntity" }
        let error = try #require(throws: StorageError.self) {
            try context.save([FixtureNoteEntity(id: "1", body: "new"), FixtureNoteEntity(id: "2", body: "new")])
        }
        #expect(error.kind == .io("refused to write DAOKit/FixtureNoteEntity"))
        #expect(error.key == nil)
        #expect(error.location == "DAOKit/FixtureNoteEntity")
        #expect(store.values == before)
        #expect(try context.fetch(FixtureNoteEntity.self, id: "1")?.body == "old")
        #expect(try context.fetch(FixtureNoteEntity.self, id: "2") == nil)
    }

    @Test func aFailedRollbackIsReportedInTheError() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "1", body: "old")])
        store.writesLeft = 1  // replacing "1" succeeds; writing "2" and putting "1" back fail
        let error = try #require(throws: StorageError.self) {
            try context.save([FixtureNoteEntity(id: "1", body: "new"), FixtureNoteEntity(id: "2", body: "new")])
        }
        guard case let .io(message) = error.kind else {
            Issue.record("expected an I/O error, got \(error.kind)")
            return
        }
        #expect(message.contains("refused to write DAOKit/FixtureNoteEntity/2"))
        #expect(message.contains("rolling back also failed for DAOKit/FixtureNoteEntity/1"))
    }

    @Test func aFailingReadIsAnIOErrorNamingTheRecord() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "1", body: ""), FixtureNoteEntity(id: "2", body: "")])
        store.failsReading = { $0 == "DAOKit/FixtureNoteEntity/2" }
        let error = try #require(throws: StorageError.self) { try context.fetchAll(FixtureNoteEntity.self) }
        #expect(error.kind == .io("refused to read DAOKit/FixtureNoteEntity/2"))
        #expect(error.entityName == "FixtureNoteEntity")
        #expect(error.key == "2")
        #expect(error.description.contains("I/O failure (refused to read DAOKit/FixtureNoteEntity/2)"))
        #expect(try context.fetch(FixtureNoteEntity.self, id: "1") != nil)
        // Replacing a record reads its old value first, so a failing read stops the save before any write.
        let before = store.values
        #expect(throws: StorageError.self) { try context.save([FixtureNoteEntity(id: "2", body: "new")]) }
        #expect(store.values == before)
    }

    @Test func aFailingIndexReadFailsEveryOperationOfThatType() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        store.failsReading = { $0 == "DAOKit/FixtureNoteEntity" }
        #expect(throws: StorageError.self) { try context.count(FixtureNoteEntity.self) }
        #expect(throws: StorageError.self) { try context.fetch(FixtureNoteEntity.self, id: "1") }
        #expect(throws: StorageError.self) { try context.delete(FixtureNoteEntity.self, ids: ["1"]) }
        #expect(throws: StorageError.self) { try context.deleteAll(FixtureNoteEntity.self) }
        #expect(throws: StorageError.self) { try context.save([FixtureNoteEntity(id: "1", body: "")]) }
        #expect(store.values.isEmpty)
        #expect(try context.count(FixtureTagEntity.self) == 0)
    }

    @Test func aFailingIndexWriteOnDeleteDeletesNothing() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "1", body: ""), FixtureNoteEntity(id: "2", body: "")])
        let before = store.values
        store.failsWriting = { $0 == "DAOKit/FixtureNoteEntity" }
        #expect(throws: StorageError.self) { try context.delete(FixtureNoteEntity.self, ids: ["1"]) }
        #expect(throws: StorageError.self) { try context.deleteAll(FixtureNoteEntity.self) }
        #expect(store.values == before)
        #expect(try context.count(FixtureNoteEntity.self) == 2)
    }

    @Test func aRecordTheStoreFailsToRemoveIsLeftUnlistedAndTheDeleteSucceeds() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "1", body: "gone"), FixtureNoteEntity(id: "2", body: "")])
        store.failsWriting = { $0 == "DAOKit/FixtureNoteEntity/1" }
        try context.delete(FixtureNoteEntity.self, ids: ["1"])
        #expect(try context.fetch(FixtureNoteEntity.self, id: "1") == nil)
        #expect(try context.count(FixtureNoteEntity.self) == 1)
        #expect(store.values["DAOKit/FixtureNoteEntity/1"] != nil)
    }

    @Test func aFailingFlushIsAnIOErrorAfterTheWrite() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        store.failsFlushing = true
        let error = try #require(throws: StorageError.self) { try context.save([FixtureNoteEntity(id: "1", body: "")]) }
        #expect(error.kind == .io("refused to flush the store"))
        #expect(error.entityName == "FixtureNoteEntity")
        #expect(error.location == "DAOKit/FixtureNoteEntity")
        // Documented: the write stays visible in this process.
        #expect(try context.count(FixtureNoteEntity.self) == 1)
    }

    @Test func aStoreThrowingStorageErrorKeepsItsKindAndGainsTheEntity() throws {
        let context = KeyValueStorageContext(store: FlushRefusingStore())
        let error = try #require(throws: StorageError.self) { try context.save([FixtureNoteEntity(id: "1", body: "")]) }
        #expect(error.kind == .io("disk full"))
        #expect(error.entityName == "FixtureNoteEntity")
        #expect(error.location == "DAOKit/FixtureNoteEntity")
    }
}

/// An entity JSON cannot always encode: `Double.nan` has no JSON form.
private struct Reading: Storable, Equatable {
    var id: Int
    var value: Double
}

/// A store that reports flush failures as StorageError itself, as `UserDefaults` does.
private final class FlushRefusingStore: KeyValueStore {
    private let inner = InMemoryKeyValueStore()
    func string(forKey key: String) throws -> String? { inner.string(forKey: key) }
    func setString(_ value: String, forKey key: String) throws { inner.setString(value, forKey: key) }
    func removeObject(forKey key: String) throws { inner.removeObject(forKey: key) }
    func flush() throws { throw StorageError(.io("disk full")) }
}
