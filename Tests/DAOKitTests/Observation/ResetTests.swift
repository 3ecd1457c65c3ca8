import Foundation
import Testing

@testable import DAOKit

/// `StorageContext.reset()`: every entity of every type goes, all or nothing, and observers see
/// the empty results.
@Suite("Reset")
struct ResetTests {
    @Test("reset removes every entity of every type", arguments: LiveContextKind.allCases)
    func resetRemovesEveryEntityOfEveryType(_ kind: LiveContextKind) throws {
        let (context, cleanUp) = try kind.make()
        defer { cleanUp() }
        let notes = LiveNoteDao(context: context)
        let tags = LiveTagDao(context: context)
        try notes.persist([note("a", 1), note("b", 2)])
        try tags.persist(LiveTag(id: "t", label: "tag"))
        try context.reset()
        #expect(try notes.read().isEmpty)
        #expect(try tags.read().isEmpty)
        #expect(try notes.count() == 0)
        // The store works as before afterwards.
        try notes.persist(note("c", 3))
        #expect(try notes.read() == [note("c", 3)])
        try context.reset()
        try context.reset()  // an empty store resets to itself
        #expect(try notes.count() == 0)
    }

    @Test("observers see the empty results after a reset", arguments: LiveContextKind.allCases)
    func observersSeeTheEmptyResultsAfterAReset(_ kind: LiveContextKind) async throws {
        let (context, cleanUp) = try kind.make()
        defer { cleanUp() }
        let notes = LiveNoteDao(context: context)
        let tags = LiveTagDao(context: context)
        try await notes.persist([note("a", 1), note("b", 2)])
        try await tags.persist(LiveTag(id: "t", label: "tag"))
        let list = StreamRecorder(notes.observe())
        let count = StreamRecorder(tags.observeCount())
        let one = StreamRecorder(notes.observe(id: "a"))
        defer {
            list.cancel()
            count.cancel()
            one.cancel()
        }
        #expect(await list.waitUntil { $0.count == 1 })
        #expect(await count.waitUntil { $0 == [1] })
        #expect(await one.waitUntil { $0 == [note("a", 1)] })
        try context.reset()
        #expect(await list.waitUntil { $0.last == [] })
        #expect(await count.waitUntil { $0 == [1, 0] })
        #expect(await one.waitUntil { $0 == [note("a", 1), nil] })
    }

    @Test("a key-value reset leaves other namespaces alone")
    func aKeyValueResetLeavesOtherNamespacesAlone() throws {
        let store = InMemoryKeyValueStore()
        let mine = LiveNoteDao(context: KeyValueStorageContext(store: store, namespace: "mine"))
        let theirs = LiveNoteDao(context: KeyValueStorageContext(store: store, namespace: "theirs"))
        try mine.persist(note("a", 1))
        try theirs.persist(note("a", 1))
        try mine.context.reset()
        #expect(try mine.read().isEmpty)
        #expect(try theirs.read() == [note("a", 1)])
    }

    @Test("a key-value reset that fails half way puts everything back")
    func aKeyValueResetThatFailsHalfWayPutsEverythingBack() throws {
        let store = FailingRemovalStore(failAfter: 2)
        let context = KeyValueStorageContext(store: store)
        let notes = LiveNoteDao(context: context)
        try notes.persist((0..<5).map { note("n\($0)", $0) })
        #expect(throws: StorageError.self) { try context.reset() }
        #expect(try notes.read().sorted { $0.id < $1.id } == (0..<5).map { note("n\($0)", $0) })
    }

    @Test("a context that does not implement reset refuses it and keeps its records")
    func aContextThatDoesNotImplementResetRefusesItAndKeepsItsRecords() throws {
        let context = SilentContext()
        let notes = LiveNoteDao(context: context)
        try notes.persist(note("a", 1))
        let error = #expect(throws: StorageError.self) { try context.reset() }
        #expect(error?.description.contains("reset()") == true)
        #expect(try notes.read() == [note("a", 1)])
    }
}

/// An in-memory key-value store whose removals fail after the first `failAfter`.
final class FailingRemovalStore: KeyValueStore, @unchecked Sendable {
    private let base = InMemoryKeyValueStore()
    private let failAfter: Int
    private var removals = 0

    init(failAfter: Int) {
        self.failAfter = failAfter
    }

    func string(forKey key: String) throws -> String? { base.string(forKey: key) }
    func setString(_ value: String, forKey key: String) throws { base.setString(value, forKey: key) }
    func removeObject(forKey key: String) throws {
        removals += 1
        if removals > failAfter { throw StorageError(.io("injected removal failure")) }
        base.removeObject(forKey: key)
    }
    func keys(withPrefix prefix: String) throws -> [String] { base.keys(withPrefix: prefix) }
    func flush() throws { try base.flush() }
}
