import DAOKit
import DAOKitTesting
import Testing

/// A key-value transaction commits as a batch does: a store failure during the commit puts back
/// what it had written, of every type, and nothing is announced.
@Suite("Key-value transactions: a failing commit puts every type back")
struct KeyValueTransactionTests {
    @Test func aStoreFailureDuringTheCommitLeavesNeitherType() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([FixtureNoteEntity(id: "kept", body: "old")])
        store.failsWriting = { $0.contains("FixtureTagEntity") }
        let error = try #require(throws: StorageError.self) {
            try context.transaction { tx in
                try tx.save([FixtureNoteEntity(id: "kept", body: "new"), FixtureNoteEntity(id: "added", body: "")])
                try tx.save([FixtureTagEntity(id: "t", label: "")])
            }
        }
        #expect(error.code == .io)
        store.failsWriting = { _ in false }
        #expect(try context.fetchAll(FixtureNoteEntity.self) == [FixtureNoteEntity(id: "kept", body: "old")])
        #expect(try context.count(FixtureTagEntity.self) == 0)
    }

    @Test func nothingReachesTheStoreBeforeTheCommit() throws {
        let store = ScriptedKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.transaction { tx in
            try tx.save([FixtureNoteEntity(id: "a", body: "")])
            #expect(store.values.isEmpty)
        }
        #expect(store.values.count == 1)
    }
}
