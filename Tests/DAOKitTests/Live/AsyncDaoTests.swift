@testable import DAOKit
import DAOKitStoreFormat
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `async` overloads of `BaseDao`: they return what the synchronous methods return, run off the
/// cooperative pool, can be shared by many tasks, and honour cancellation.
@Suite("Async DAO")
struct AsyncDaoTests {
    @Test("the async overloads do what the synchronous methods do")
    func theAsyncOverloadsDoWhatTheSynchronousMethodsDo() async throws {
        let dao = LiveNoteDao(context: InMemoryStorageContext())
        try await dao.create(note("a", 1))
        await #expect(throws: StorageError.self) { try await dao.create(note("a", 2)) }
        try await dao.update(note("a", 3))
        await #expect(throws: StorageError.self) { try await dao.update(note("zz", 2)) }
        try await dao.persist(note("b", 4))
        try await dao.persist([note("c", 5), note("d", 6)])
        #expect(try await dao.read(id: "a") == note("a", 3))
        #expect(try await dao.read().count == 4)
        #expect(try await dao.read(where: #Predicate { $0.number > 3 }, sortedBy: [SortDescriptor(\.number, order: .reverse)], limit: 2)
            == [note("d", 6), note("c", 5)])
        #expect(try await dao.count() == 4)
        #expect(try await dao.count(where: #Predicate { $0.number > 4 }) == 2)
        #expect(try await dao.storedIDs().sorted() == ["a", "b", "c", "d"])
        #expect(try await dao.readReadable().values.count == 4)
        try await dao.erase(id: "a")
        try await dao.erase(ids: ["b"])
        try await dao.erase(where: #Predicate { $0.number == 5 })
        #expect(try await dao.read() == [note("d", 6)])
        try await dao.erase(storageKeys: ["d"])
        try await dao.persist(note("e", 7))
        try await dao.erase()
        #expect(try await dao.count() == 0)
    }

    @Test("a thousand concurrent tasks finish while the cooperative pool stays responsive", arguments: LiveContextKind.allCases)
    func aThousandConcurrentTasksFinishWhileTheCooperativePoolStaysResponsive(_ kind: LiveContextKind) async throws {
        let (base, cleanUp) = try kind.make()
        defer { cleanUp() }
        // Every save blocks its thread at a gate, as a slow disk would, until a probe task has made
        // its way through the cooperative pool. Were the async overloads to block the pool's threads,
        // the probe could never run and the gate would open only at its deadline: the test then
        // fails, after a minute, instead of hanging. No timing decides the outcome otherwise.
        let gate = SaveGate(deadline: Date(timeIntervalSinceNow: 60))
        let dao = LiveNoteDao(context: GatedContext(base: base, gate: gate))
        let finished = Locked(0)
        let workload = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<1_000 {
                    group.addTask {
                        if index % 2 == 0 {
                            try await dao.persist(note("n\(index % 100)", index))
                        } else {
                            _ = try await dao.read(id: "n\(index % 100)")
                        }
                        finished.withLock { $0 += 1 }
                    }
                }
                try await group.waitForAll()
            }
        }
        // A task on the pool: 10 short steps, each a hop through the pool's queue.
        let probe = Task {
            for _ in 0..<10 { await Task.yield() }
            return finished.withLock { $0 }
        }
        let finishedWhenTheProbeWasDone = await probe.value
        let openedBeforeTheDeadline = gate.open()
        try await workload.value
        #expect(finished.withLock { $0 } == 1_000)
        #expect(try await dao.count() == 50)  // the even indexes write n0, n2, … n98
        #expect(openedBeforeTheDeadline, "the probe ran only once the blocked saves had given up waiting")
        #expect(finishedWhenTheProbeWasDone < 1_000, "the probe finished only after \(finishedWhenTheProbeWasDone) calls")
    }

    @Test("a task cancelled before its call starts skips the work")
    func aTaskCancelledBeforeItsCallStartsSkipsTheWork() async throws {
        let dao = LiveNoteDao(context: InMemoryStorageContext())
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await dao.persist(note("a", 1))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await dao.count() == 0)
    }

    @Test("waiting for another process's lock ends when the task is cancelled, changing nothing")
    func waitingForAnotherProcessLockEndsWhenTheTaskIsCancelled() async throws {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        let dao = LiveNoteDao(context: try FileStorageContext(directory: directory.url))
        // flock locks belong to open file descriptions: one of our own on `.lock` holds the store
        // exactly as another process's writer would.
        let fd = open(directory.path + "/.lock", O_RDWR)
        #expect(fd >= 0)
        defer { close(fd) }
        #expect(flock(fd, LOCK_EX) == 0)
        let task = Task { try await dao.persist(note("a", 1)) }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(flock(fd, LOCK_UN) == 0)
        #expect(try await dao.count() == 0)
        // Once the lock is free, the store works as usual.
        try await dao.persist(note("b", 2))
        #expect(try await dao.read() == [note("b", 2)])
    }

    @Test("a DAO is captured by task groups and detached tasks as it is")
    func aDaoIsCapturedByTaskGroupsAndDetachedTasksAsItIs() async throws {
        let dao = LiveNoteDao(context: InMemoryStorageContext())
        try await Task.detached { try await dao.persist(note("a", 1)) }.value
        let counts = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await dao.count() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 1, count: 8))
    }
}

/// A gate every save of a ``GatedContext`` waits at until the test opens it or its deadline passes.
final class SaveGate: @unchecked Sendable {
    // Sound as `Sendable`: `isOpen` is touched only with `condition` locked.
    private let condition = NSCondition()
    private var isOpen = false
    private let deadline: Date

    init(deadline: Date) { self.deadline = deadline }

    /// Blocks the calling thread until the gate is open or the deadline has passed.
    func pass() {
        condition.lock()
        defer { condition.unlock() }
        while !isOpen && condition.wait(until: deadline) {}
    }

    /// Opens the gate; returns whether that happened before its deadline.
    func open() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        isOpen = true
        condition.broadcast()
        return Date() < deadline
    }
}

/// A context whose writes block their thread at a ``SaveGate`` first.
final class GatedContext: StorageContext {
    let base: any StorageContext
    let gate: SaveGate
    init(base: any StorageContext, gate: SaveGate) {
        self.base = base
        self.gate = gate
    }
    var changeNotifier: StorageChangeNotifier? { base.changeNotifier }
    func save<E: Storable>(_ entities: [E]) throws {
        gate.pass()
        try base.save(entities)
    }
    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        gate.pass()
        try base.save(entities, mode: mode)
    }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { try base.fetch(type, id: id) }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { try base.fetchAll(type) }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { try base.delete(type, ids: ids) }
    func deleteAll<E: Storable>(_ type: E.Type) throws { try base.deleteAll(type) }
    func count<E: Storable>(_ type: E.Type) throws -> Int { try base.count(type) }
}
