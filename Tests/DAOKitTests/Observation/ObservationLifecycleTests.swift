import DAOKitInternals
import Foundation
import Testing

@testable import DAOKit

/// How observations end, coalesce and share work: cancellation releases everything, bursts end on
/// the final state, errors end the stream, contexts without a notifier deliver once.
@Suite("Observation lifecycle")
struct ObservationLifecycleTests {
    @Test("no element follows cancellation, and the subscription is released")
    func noElementFollowsCancellationAndTheSubscriptionIsReleased() async throws {
        let context = InMemoryStorageContext()
        let dao = LiveNoteDao(context: context)
        let recorder = StreamRecorder(dao.observe())
        #expect(await recorder.waitUntil { $0.count == 1 })
        #expect(context.changeNotifier?.hasSubscribers == true)
        recorder.cancel()
        #expect(await recorder.waitUntilFinished())
        for index in 0..<20 { try await dao.persist(note("n\(index)", index)) }
        try await Task.sleep(for: silenceWindow)
        #expect(recorder.elements.count == 1)
        #expect(context.changeNotifier?.hasSubscribers == false)
    }

    @Test("dropping a stream without iterating it releases its subscription")
    func droppingAStreamWithoutIteratingItReleasesItsSubscription() async throws {
        let context = InMemoryStorageContext()
        let dao = LiveNoteDao(context: context)
        do {
            let stream = dao.observeCount()
            _ = stream
        }
        let deadline = ContinuousClock.now + .seconds(10)
        while context.changeNotifier?.hasSubscribers == true && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(context.changeNotifier?.hasSubscribers == false)
    }

    @Test("a thousand writes coalesce and end on the final state", arguments: LiveContextKind.allCases)
    func aThousandWritesCoalesceAndEndOnTheFinalState(_ kind: LiveContextKind) async throws {
        let (context, cleanUp) = try kind.make()
        defer { cleanUp() }
        let dao = LiveNoteDao(context: context)
        let list = StreamRecorder(
            dao.observe(where: #Predicate { $0.number % 2 == 0 }, sortedBy: [SortDescriptor(\.id)]))
        let count = StreamRecorder(dao.observeCount())
        let one = StreamRecorder(dao.observe(id: "k7"))
        defer {
            list.cancel()
            count.cancel()
            one.cancel()
        }
        #expect(await count.waitUntil { $0 == [0] })
        let writes = kind == .file ? 300 : 1_000  // the file store fsyncs every write
        for index in 0..<writes { try await dao.persist(note("k\(index % 10)", index)) }
        let final = try await dao.read(where: #Predicate { $0.number % 2 == 0 }, sortedBy: [SortDescriptor(\.id)])
        #expect(await list.waitUntil { $0.last == final })
        #expect(await count.waitUntil { $0.last == 10 })
        #expect(await one.waitUntil { $0.last == note("k7", writes - 3) })
        // Never more than one element per write; and where writes come faster than queries re-run
        // (memory, key-value), far fewer.
        #expect(list.elements.count <= writes + 1)
        if kind != .file { #expect(list.elements.count < writes / 2, "\(list.elements.count) elements") }
    }

    @Test("an error ends the stream with it")
    func anErrorEndsTheStreamWithIt() async throws {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        let dao = LiveNoteDao(context: context)
        try await dao.persist(note("a", 1))
        let recorder = StreamRecorder(dao.observe(id: "a"))
        #expect(await recorder.waitUntil { $0.count == 1 })
        // A record another program damaged, then a write through the context that announces it.
        let key = KeyValueKeyScheme.recordKey(
            namespace: context.namespace, entityName: LiveNoteEntity.entityName, storageKey: "a")
        store.setString("not json", forKey: key)
        context.changeNotifier?.post(StorageChange(entityName: LiveNoteEntity.entityName, storageKeys: ["a"]))
        #expect(await recorder.waitUntilFinished())
        #expect(recorder.error is StorageError)
        #expect(context.changeNotifier?.hasSubscribers == false)
    }

    @Test("a context without a notifier delivers the first result only")
    func aContextWithoutANotifierDeliversTheFirstResultOnly() async throws {
        let context = SilentContext()
        #expect(context.changeNotifier == nil)
        let dao = LiveNoteDao(context: context)
        try await dao.persist(note("a", 1))
        let recorder = StreamRecorder(dao.observe())
        defer { recorder.cancel() }
        #expect(await recorder.waitUntil { $0 == [[note("a", 1)]] })
        try await dao.persist(note("b", 2))
        try await Task.sleep(for: silenceWindow)
        #expect(recorder.elements == [[note("a", 1)]])
        #expect(!recorder.isFinished)
    }

    @Test("a write far from every observed result runs no query")
    func aWriteFarFromEveryObservedResultRunsNoQuery() async throws {
        let context = CountingContext()
        let dao = LiveNoteDao(context: context)
        try await dao.persist((0..<10).map { note("n\($0)", $0) })
        let recorders = (0..<20).map { index in
            StreamRecorder(dao.observe(where: #Predicate { $0.number == 1_000 + index }, limit: 5))
        }
        defer { for recorder in recorders { recorder.cancel() } }
        for recorder in recorders { #expect(await recorder.waitUntil { $0 == [[]] }) }
        let queriesBefore = context.queries
        try await dao.persist(note("n3", 3))  // matches no observed predicate, in no observed result
        let one = StreamRecorder(dao.observe(id: "n3"))
        defer { one.cancel() }
        #expect(await one.waitUntil { $0.count == 1 })
        try await Task.sleep(for: silenceWindow)
        // Each observation read the changed record by id instead of re-running its query.
        #expect(context.queries == queriesBefore)
        for recorder in recorders { #expect(recorder.elements == [[]]) }
    }
}

/// An in-memory context that counts the queries run through it.
final class CountingContext: StorageContext {
    let base = InMemoryStorageContext()
    private let counter = Locked(0)
    var queries: Int { counter.withLock { $0 } }
    var changeNotifier: StorageChangeNotifier? { base.changeNotifier }
    func save<E: Storable>(_ entities: [E]) throws { try base.save(entities) }
    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws { try base.save(entities, mode: mode) }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { try base.fetch(type, id: id) }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        counter.withLock { $0 += 1 }
        return try base.fetchAll(type)
    }
    func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) throws -> [E] {
        // The DAO's one-record probe that proves field translations is not a query of a result.
        if query.limit != 1 || query.filter != nil { counter.withLock { $0 += 1 } }
        return try base.fetch(type, matching: query)
    }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { try base.delete(type, ids: ids) }
    func deleteAll<E: Storable>(_ type: E.Type) throws { try base.deleteAll(type) }
    func count<E: Storable>(_ type: E.Type) throws -> Int { try base.count(type) }
    func reset() throws { try base.reset() }
}
