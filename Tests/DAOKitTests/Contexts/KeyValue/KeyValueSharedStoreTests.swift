import DAOKit
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

/// Several KeyValueStorageContexts on one store and namespace, as an app and its extension on one
/// App Group suite have: whatever they write concurrently, no record is lost and none is orphaned.
@Suite("KeyValueStorageContext shared store")
struct KeyValueSharedStoreTests {
    private static let perWriter = 100

    /// Two threads, each persisting `perWriter` records one by one through its own context.
    private static func persistConcurrently(through contexts: [KeyValueStorageContext]) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (writer, context) in contexts.enumerated() {
                group.addTask {
                    for number in 0..<perWriter {
                        try context.save([FixtureNoteEntity(id: "\(writer)-\(number)", body: "by \(writer)")])
                    }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test func twoContextsOnOneInMemoryStoreLoseNoRecord() async throws {
        let store = InMemoryKeyValueStore()
        let contexts = [KeyValueStorageContext(store: store), KeyValueStorageContext(store: store)]
        try await Self.persistConcurrently(through: contexts)
        for context in contexts {
            #expect(try context.count(FixtureNoteEntity.self) == 2 * Self.perWriter)
            #expect(try context.fetchAll(FixtureNoteEntity.self).count == 2 * Self.perWriter)
        }
    }

    @Test func erasingThroughEitherContextLeavesNoOrphanedKey() async throws {
        let store = InMemoryKeyValueStore()
        let contexts = [KeyValueStorageContext(store: store), KeyValueStorageContext(store: store)]
        try await Self.persistConcurrently(through: contexts)
        try contexts[1].deleteAll(FixtureNoteEntity.self)
        #expect(store.contents.count == 0)
        #expect(try contexts[0].count(FixtureNoteEntity.self) == 0)
    }

    @Test func twoContextsOnOneUserDefaultsSuiteLoseNoRecord() async throws {
        let suite = TemporarySuite()
        defer { suite.remove() }
        // Two UserDefaults objects for one suite, as two independent parts of an app would make.
        let contexts = [KeyValueStorageContext(store: suite.defaults), KeyValueStorageContext(store: suite.defaults)]
        try await Self.persistConcurrently(through: contexts)
        for context in contexts {
            #expect(try context.count(FixtureNoteEntity.self) == 2 * Self.perWriter)
        }
        try contexts[0].deleteAll(FixtureNoteEntity.self)
        let leftovers = suite.defaults.dictionaryRepresentation().keys.filter { $0.hasPrefix("DAOKit/") }
        #expect(leftovers.count == 0, "orphaned keys, such as \(leftovers.sorted().prefix(3))")
    }

    @Test func concurrentDeletesAndSavesThroughTwoContextsAgreeWithTheStore() async throws {
        let store = InMemoryKeyValueStore()
        let contexts = [KeyValueStorageContext(store: store), KeyValueStorageContext(store: store)]
        try contexts[0].save((0..<Self.perWriter).map { FixtureNoteEntity(id: "old-\($0)", body: "") })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for number in 0..<Self.perWriter {
                    try contexts[0].delete(FixtureNoteEntity.self, ids: ["old-\(number)"])
                }
            }
            group.addTask {
                for number in 0..<Self.perWriter {
                    try contexts[1].save([FixtureNoteEntity(id: "new-\(number)", body: "")])
                }
            }
            try await group.waitForAll()
        }
        let listed = try contexts[1].fetchAll(FixtureNoteEntity.self).map(\.id)
        #expect(Set(listed) == Set((0..<Self.perWriter).map { "new-\($0)" }))
        #expect(store.contents.count == Self.perWriter)
    }
}

/// Two processes on one UserDefaults suite, each writing through its own context: the
/// `DAOKitCrashWriter defaults` children.
///
/// On Linux the processes take turns. swift-corelibs-foundation's `synchronize()` re-reads the
/// suite's file, applies this process's changes and writes it back with no lock between
/// processes, so two processes synchronizing at the same moment can replace each other's file
/// whatever the context does (README, "Key-value stores"); on Apple platforms cfprefsd merges
/// their writes, and the children run at once.
@Suite("KeyValueStorageContext shared suite across processes")
struct KeyValueSharedSuiteProcessTests {
    @Test func twoProcessesWritingOneSuiteThroughTheirOwnContextsLoseNoRecord() throws {
        let suite = TemporarySuite()
        defer { suite.remove() }
        #if canImport(Darwin)
            let children = try ["first", "second"].map {
                try FileChildProcess(arguments: ["defaults", suite.name, $0, "100"])
            }
            let results = children.map { $0.finish() }
        #else
            let results = try ["first", "second"].map {
                try FileChildProcess(arguments: ["defaults", suite.name, $0, "100"]).finish()
            }
        #endif
        for result in results {
            #expect(result.status == 0, "child failed: \(result.errors)")
            #expect(result.output == ["done"])
        }
        // This process has not opened the suite before, so it reads what the children left on disk.
        let context = KeyValueStorageContext(store: suite.defaults)
        let ids = Set(try context.fetchAll(FileCrashRecord.self).map(\.id))
        #expect(ids == Set(["first", "second"].flatMap { prefix in (0..<100).map { "\(prefix)-\($0)" } }))
        try context.deleteAll(FileCrashRecord.self)
        #expect(try context.count(FileCrashRecord.self) == 0)
    }
}
