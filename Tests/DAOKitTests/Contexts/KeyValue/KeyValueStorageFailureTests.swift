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
        #expect(
            error.description.hasPrefix(
                #"FixtureNoteEntity "2": corrupt record (not valid JSON) at DAOKit/FixtureNoteEntity/2"#))
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

    @Test func aRecordRemovedBetweenListingAndReadingIsSkipped() throws {
        // Another process deletes "gone" after fetchAll listed the keys and before it read them.
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "kept", body: "")])
        store.phantomKeys = ["DAOKit/FixtureNoteEntity/gone"]
        #expect(try context.fetchAll(FixtureNoteEntity.self).map(\.id) == ["kept"])
    }

    // MARK: Reading past unreadable records

    @Test func fetchReadableReportsARecordThatIsNotJSONAndReadsTheOthers() throws {
        let (store, context) = try storeWithNotes()
        store.setString("{\"body\": \"trunc", forKey: "DAOKit/FixtureNoteEntity/2")
        let found = try context.fetchReadable(FixtureNoteEntity.self)
        #expect(found.values == [notes[0], notes[2]])
        #expect(found.failures.map(\.storageKey) == ["2"])
        #expect(found.failures.first?.error.kind == .corruptRecord("not valid JSON"))
        #expect(found.failures.first?.error.location == "DAOKit/FixtureNoteEntity/2")
    }

    @Test func fetchReadableReportsARecordTheStoreFailsToReadAndReadsTheOthers() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save(notes)
        store.failsReading = { $0 == "DAOKit/FixtureNoteEntity/1" }
        let found = try context.fetchReadable(FixtureNoteEntity.self)
        #expect(found.values == [notes[1], notes[2]])
        #expect(found.failures.map(\.storageKey) == ["1"])
        #expect(found.failures.first?.error.kind == .io("refused to read DAOKit/FixtureNoteEntity/1"))
    }

    @Test func storedKeysAndFetchReadableThrowWhenTheStoreCannotList() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save(notes)
        store.failsReading = { $0 == "list DAOKit/FixtureNoteEntity/" }
        #expect(throws: StorageError.self) { try context.fetchReadable(FixtureNoteEntity.self) }
        let error = try #require(throws: StorageError.self) { try context.storedKeys(FixtureNoteEntity.self) }
        #expect(error.kind == .io("refused to list DAOKit/FixtureNoteEntity/"))
    }

    @Test func deleteByStorageKeysPutsBackWhatItRemovedWhenARemovalFails() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save(notes)
        let before = store.values
        store.failsWriting = { $0 == "DAOKit/FixtureNoteEntity/3" }
        let error = try #require(throws: StorageError.self) {
            try context.delete(FixtureNoteEntity.self, storageKeys: ["1", "3"])
        }
        #expect(error.key == "3")
        #expect(store.values == before)
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
        guard error.code == .io, let message = error.kind.detail else {
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

    @Test func aBatchFailingAfterAFlushAlongTheWayFlushesItsRollbackToo() throws {
        let store = ScriptedKeyValueStore()
        store.writesBetweenFlushes = 2
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "1", body: "old")])
        let before = store.values
        store.failsWriting = { $0 == "DAOKit/FixtureNoteEntity/3" }  // after "1" and "2" were flushed
        #expect(throws: StorageError.self) {
            try context.save((1...3).map { FixtureNoteEntity(id: "\($0)", body: "new") })
        }
        #expect(store.values == before)
        #expect(store.flushedValues == before)
    }

    @Test func aFailedRollbackIsReportedInTheError() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "1", body: "old")])
        store.writesLeft = 1  // replacing "1" succeeds; writing "2" and putting "1" back fail
        let error = try #require(throws: StorageError.self) {
            try context.save([FixtureNoteEntity(id: "1", body: "new"), FixtureNoteEntity(id: "2", body: "new")])
        }
        guard error.code == .io, let message = error.kind.detail else {
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

    @Test func aRollbackLeavesAKeyAnotherWriterChangedSinceAlone() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "1", body: "old")])
        // While this batch is between its writes, another context replaces "1".
        store.failsWriting = { key in
            if key == "DAOKit/FixtureNoteEntity/2" {
                try? store.setString(#"{"body":"theirs","id":"1"}"#, forKey: "DAOKit/FixtureNoteEntity/1")
                return true
            }
            return false
        }
        #expect(throws: StorageError.self) {
            try context.save([FixtureNoteEntity(id: "1", body: "mine"), FixtureNoteEntity(id: "2", body: "mine")])
        }
        #expect(try context.fetch(FixtureNoteEntity.self, id: "1")?.body == "theirs")
        #expect(try context.fetch(FixtureNoteEntity.self, id: "2") == nil)
    }

    @Test func aFailingListingFailsTheWholeTypeOperationsButNotThoseByID() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "1", body: "")])
        store.failsReading = { $0 == "list DAOKit/FixtureNoteEntity/" }
        let error = try #require(throws: StorageError.self) { try context.count(FixtureNoteEntity.self) }
        #expect(error.kind == .io("refused to list DAOKit/FixtureNoteEntity/"))
        #expect(error.entityName == "FixtureNoteEntity")
        #expect(error.location == "DAOKit/FixtureNoteEntity/")
        #expect(throws: StorageError.self) { try context.fetchAll(FixtureNoteEntity.self) }
        #expect(throws: StorageError.self) { try context.deleteAll(FixtureNoteEntity.self) }
        #expect(store.values.count == 1)
        try context.save([FixtureNoteEntity(id: "2", body: "")])
        #expect(try context.fetch(FixtureNoteEntity.self, id: "1") != nil)
        try context.delete(FixtureNoteEntity.self, ids: ["1"])
        #expect(try context.count(FixtureTagEntity.self) == 0)
    }

    @Test func aRemovalFailingMidDeletePutsBackWhatWasRemoved() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save((1...3).map { FixtureNoteEntity(id: "\($0)", body: "body \($0)") })
        let before = store.values
        store.failsWriting = { $0 == "DAOKit/FixtureNoteEntity/2" }
        let error = try #require(throws: StorageError.self) {
            try context.delete(FixtureNoteEntity.self, ids: ["1", "2", "3"])
        }
        #expect(error.kind == .io("refused to remove DAOKit/FixtureNoteEntity/2"))
        #expect(error.key == "2")
        #expect(store.values == before)
        #expect(throws: StorageError.self) { try context.deleteAll(FixtureNoteEntity.self) }
        #expect(store.values == before)
        #expect(try context.count(FixtureNoteEntity.self) == 3)
    }

    @Test func aStoreThatCannotListItsKeysStillSavesFetchesAndDeletesByID() throws {
        let context = KeyValueStorageContext(store: UnlistableStore())
        try context.save([FixtureNoteEntity(id: "1", body: "kept")], mode: .insert)
        #expect(try context.fetch(FixtureNoteEntity.self, id: "1")?.body == "kept")
        let error = try #require(throws: StorageError.self) { try context.count(FixtureNoteEntity.self) }
        #expect(error.kind == .io("UnlistableStore cannot list its keys: implement KeyValueStore.keys(withPrefix:)"))
        #expect(error.entityName == "FixtureNoteEntity")
        try context.delete(FixtureNoteEntity.self, ids: ["1"])
        #expect(try context.fetch(FixtureNoteEntity.self, id: "1") == nil)
    }

    @Test func aFailingFlushIsAnIOErrorAfterTheWrite() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        store.failsFlushing = true
        let error = try #require(throws: StorageError.self) { try context.save([FixtureNoteEntity(id: "1", body: "")]) }
        #expect(error.kind == .io("refused to flush the store"))
        #expect(error.entityName == "FixtureNoteEntity")
        #expect(error.location == "DAOKit/FixtureNoteEntity/")
        // Documented: the write stays visible in this process.
        #expect(try context.count(FixtureNoteEntity.self) == 1)
    }

    @Test func aStoreThrowingStorageErrorKeepsItsKindAndGainsTheEntity() throws {
        let context = KeyValueStorageContext(store: FlushRefusingStore())
        let error = try #require(throws: StorageError.self) { try context.save([FixtureNoteEntity(id: "1", body: "")]) }
        #expect(error.kind == .io("disk full"))
        #expect(error.entityName == "FixtureNoteEntity")
        #expect(error.location == "DAOKit/FixtureNoteEntity/")
    }
}

/// An entity JSON cannot always encode: `Double.nan` has no JSON form.
/// Refuses to encode a NaN `value`, as JSON once did: the key-value context now stores NaN (as
/// `"NaN"`), so an encoding failure has to come from the entity.
private struct Reading: Storable, Equatable {
    var id: Int
    var value: Double

    private enum CodingKeys: String, CodingKey { case id, value }

    init(id: Int, value: Double) {
        self.id = id
        self.value = value
    }

    func encode(to encoder: any Encoder) throws {
        if value.isNaN {
            throw EncodingError.invalidValue(
                value, .init(codingPath: encoder.codingPath, debugDescription: "no NaN here"))
        }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(value, forKey: .value)
    }
}

/// A store written before ``KeyValueStore/keys(withPrefix:)`` existed: it relies on the default.
private final class UnlistableStore: KeyValueStore {
    private let inner = InMemoryKeyValueStore()
    func string(forKey key: String) throws -> String? { inner.string(forKey: key) }
    func setString(_ value: String, forKey key: String) throws { inner.setString(value, forKey: key) }
    func removeObject(forKey key: String) throws { inner.removeObject(forKey: key) }
}

/// A store that reports flush failures as StorageError itself, as `UserDefaults` does.
private final class FlushRefusingStore: KeyValueStore {
    private let inner = InMemoryKeyValueStore()
    func string(forKey key: String) throws -> String? { inner.string(forKey: key) }
    func setString(_ value: String, forKey key: String) throws { inner.setString(value, forKey: key) }
    func removeObject(forKey key: String) throws { inner.removeObject(forKey: key) }
    func flush() throws { throw StorageError(.io("disk full")) }
}
