import DAOKit
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

@Suite("UserDefaults as a KeyValueStore")
struct UserDefaultsKeyValueStoreTests {
    @Test func aReopenedSuiteReadsWhatAnEarlierContextWrote() throws {
        let suite = TemporarySuite()
        defer { suite.remove() }
        let messages = FixtureMessage.samples(3)
        try BaseDao<FixtureMessage, FixtureMessageEntity>(context: KeyValueStorageContext(store: suite.defaults))
            .persist(messages)
        // A new UserDefaults object and a new context, as a relaunched app would make.
        let reopened = BaseDao<FixtureMessage, FixtureMessageEntity>(
            context: KeyValueStorageContext(store: UserDefaults(suiteName: suite.name)!))
        #expect(try reopened.read(sortedBy: [SortDescriptor(\.date)]) == messages)
    }

    @Test func writesReachThePropertyListOnDiskSoANewProcessReadsThem() throws {
        let suite = TemporarySuite()
        defer { suite.remove() }
        try KeyValueStorageContext(store: suite.defaults).save([FixtureNoteEntity(id: "n/1", body: "on disk")])
        #if canImport(Darwin)
            // cfprefsd owns the file on Apple platforms; what this process sees is what it persists.
            #expect(
                suite.defaults.string(forKey: "DAOKit/FixtureNoteEntity/n%2F1")?.hasSuffix(
                    #""entity":{"body":"on disk","id":"n/1"}}"#) == true)
        #else
            // swift-corelibs-foundation keeps writes in memory until synchronize(), which the
            // context's flush calls; a new process reads this file.
            let configHome =
                ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
            let file = configHome.appendingPathComponent("\(suite.name).plist")
            let data = try Data(contentsOf: file)
            let plist = try #require(
                try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
            #expect(
                (plist["DAOKit/FixtureNoteEntity/n%2F1"] as? String)?.hasSuffix(
                    #""entity":{"body":"on disk","id":"n/1"}}"#) == true)
        #endif
    }

    @Test func aCorruptValueInTheSuiteIsAClearErrorWhileOthersRead() throws {
        let suite = TemporarySuite()
        defer { suite.remove() }
        let context = KeyValueStorageContext(store: suite.defaults)
        try context.save([FixtureNoteEntity(id: "good", body: "fine"), FixtureNoteEntity(id: "bad", body: "")])
        // Another part of the app stores a number under the record's key.
        suite.defaults.set(42.5, forKey: "DAOKit/FixtureNoteEntity/bad")
        let error = try #require(throws: StorageError.self) { try context.fetch(FixtureNoteEntity.self, id: "bad") }
        #expect(error.entityName == "FixtureNoteEntity")
        #expect(error.key == "bad")
        #expect(error.location == "DAOKit/FixtureNoteEntity/bad")
        #expect(error.kind == .decodingFailed)
        #expect(try context.fetch(FixtureNoteEntity.self, id: "good")?.body == "fine")
    }

    @Test func setStringStoresAStringAndRemoveObjectRemovesIt() throws {
        let suite = TemporarySuite()
        defer { suite.remove() }
        let store: any KeyValueStore = suite.defaults
        try store.setString("value\0with NUL", forKey: "k")
        #expect(try store.string(forKey: "k") == "value\0with NUL")
        try store.removeObject(forKey: "k")
        #expect(try store.string(forKey: "k") == nil)
        try store.flush()
    }
}

@Suite("InMemoryKeyValueStore")
struct InMemoryKeyValueStoreTests {
    @Test func itStoresReplacesAndRemovesStrings() {
        let store = InMemoryKeyValueStore(["seed": "1"])
        #expect(store.string(forKey: "seed") == "1")
        store.setString("2", forKey: "seed")
        store.setString("x", forKey: "other")
        #expect(store.contents == ["seed": "2", "other": "x"])
        store.removeObject(forKey: "seed")
        store.removeObject(forKey: "never there")
        #expect(store.string(forKey: "seed") == nil)
        #expect(store.contents == ["other": "x"])
    }

    @Test func concurrentWritersLoseNothing() async {
        let store = InMemoryKeyValueStore()
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for number in 0..<200 { store.setString("\(writer)", forKey: "\(writer)-\(number)") }
                }
            }
        }
        #expect(store.contents.count == 1_600)
    }
}
