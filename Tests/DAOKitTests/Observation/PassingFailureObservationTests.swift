import DAOKitInternals
import Foundation
import Testing

@testable import DAOKit

/// An observation outlives a failure its context's change monitor says passes by itself (a server
/// restarting), and ends with any other: ``ExternalChangeMonitor/observationOutlives(_:)``.
@Suite("Observation across passing failures")
struct PassingFailureObservationTests {
    @Test func anObservationWaitsOutAPassingFailureAndDeliversOnceTheStoreIsBack() async throws {
        let context = AwayContext()
        let dao = LiveNoteDao(context: context)
        try await dao.persist(note("a", 1))
        let counts = StreamRecorder(dao.observeCount())
        defer { counts.cancel() }
        #expect(await counts.waitUntil { $0 == [1] })
        context.isAway = true
        try await dao.persist(note("b", 2))  // announced: the observation runs, and fails
        #expect(await context.waitForFailedReads(1))
        try await Task.sleep(for: silenceWindow)
        #expect(!counts.isFinished, "a passing failure keeps the stream open: \(String(describing: counts.error))")
        context.isAway = false
        context.monitor.report(.everything)  // the store is back
        #expect(await counts.waitUntil { $0 == [1, 2] })
        #expect(!counts.isFinished)
    }

    @Test func aFailureTheMonitorDoesNotExcuseEndsTheStreamWithIt() async throws {
        let context = AwayContext()
        let dao = LiveNoteDao(context: context)
        let counts = StreamRecorder(dao.observeCount())
        #expect(await counts.waitUntil { $0 == [0] })
        context.failure = ReadRefused()
        context.isAway = true
        try await dao.persist(note("a", 1))
        #expect(await counts.waitUntilFinished())
        #expect(counts.error is ReadRefused, "\(String(describing: counts.error))")
        #expect(context.changeNotifier?.hasSubscribers == false)
    }

    @Test func theFirstRunAfterAPassingFailureReadsEverythingRatherThanTheChangedRecords() async throws {
        let context = AwayContext()
        let dao = LiveNoteDao(context: context)
        let large = StreamRecorder(dao.observe(where: #Predicate { $0.number > 5 }, sortedBy: [SortDescriptor(\.id)]))
        defer { large.cancel() }
        #expect(await large.waitUntil { $0 == [[]] })
        context.isAway = true
        try await dao.persist(note("x", 1))
        #expect(await context.waitForFailedReads(1))
        // Written while the store was away, and never announced (its notification was lost).
        try context.base.save([LiveNoteEntity(id: "lost", text: "t", number: 9)])
        context.isAway = false
        // A change naming one record that matches nothing: alone, it would let the observation
        // skip its query.
        context.monitor.report(StorageChange(entityName: LiveNoteEntity.entityName, storageKeys: ["x"]))
        #expect(await large.waitUntil { $0.last == [LiveNote(id: "lost", text: "t", number: 9)] })
    }
}

/// What the away context's reads throw while it is away, unless told otherwise: a failure its
/// monitor says passes.
private struct StoreAway: Error {}
/// A failure no monitor excuses.
private struct ReadRefused: Error {}

/// A monitor that reports what the test tells it to, and says ``StoreAway`` passes.
private final class ScriptedMonitor: ExternalChangeMonitor {
    private let pending = Locked<[StorageChange]>([])
    func begin() {}
    func end() {}
    func changes() -> [StorageChange] {
        pending.withLock { pending in
            defer { pending = [] }
            return pending
        }
    }
    func observationOutlives(_ error: any Error) -> Bool { error is StoreAway }
    func report(_ change: StorageChange) { pending.withLock { $0.append(change) } }
}

/// An in-memory context whose reads fail while `isAway`, as a server's do while it restarts.
private final class AwayContext: StorageContext {
    let base = InMemoryStorageContext()
    let monitor = ScriptedMonitor()
    let notifier: StorageChangeNotifier
    private let state = Locked((away: false, failure: (any Error & Sendable)?.none, failedReads: 0))

    init() {
        notifier = StorageChangeNotifier(monitor: monitor, pollInterval: .milliseconds(5))
    }

    var changeNotifier: StorageChangeNotifier? { notifier }
    var isAway: Bool {
        get { state.withLock { $0.away } }
        set { state.withLock { $0.away = newValue } }
    }
    /// What reads throw while away; ``StoreAway`` when `nil`.
    var failure: (any Error & Sendable)? {
        get { state.withLock { $0.failure } }
        set { state.withLock { $0.failure = newValue } }
    }

    /// Waits until at least `count` reads have failed; `false` after ten seconds.
    func waitForFailedReads(_ count: Int) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.failedReads >= count }) { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return false
    }

    private func read<T>(_ body: () throws -> T) throws -> T {
        if let failure = state.withLock({ state -> (any Error)? in
            guard state.away else { return nil }
            state.failedReads += 1
            return state.failure ?? StoreAway()
        }) {
            throw failure
        }
        return try body()
    }

    func save<E: Storable>(_ entities: [E]) throws { try save(entities, mode: .upsert) }
    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        try base.save(entities, mode: mode)
        notifier.post(entityName: E.entityName, storageKeys: entities.map(\.id.storageKey))
    }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { try read { try base.fetch(type, id: id) } }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { try read { try base.fetchAll(type) } }
    func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) throws -> [E] {
        try read { try base.fetch(type, matching: query) }
    }
    func count<E: Storable>(_ type: E.Type) throws -> Int { try read { try base.count(type) } }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws {
        try base.delete(type, ids: ids)
        notifier.post(entityName: E.entityName, storageKeys: ids.map(\.storageKey))
    }
    func deleteAll<E: Storable>(_ type: E.Type) throws {
        try base.deleteAll(type)
        notifier.post(.entity(E.entityName))
    }
}
