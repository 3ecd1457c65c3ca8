import DAOKitInternals
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

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
        #expect(
            try await dao.read(
                where: #Predicate { $0.number > 3 }, sortedBy: [SortDescriptor(\.number, order: .reverse)], limit: 2)
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

    @Test(
        "a thousand concurrent calls run on DAOKit's few threads, never on the cooperative pool",
        arguments: LiveContextKind.allCases)
    func aThousandConcurrentCallsRunOnDAOKitsFewThreadsNeverOnTheCooperativePool(_ kind: LiveContextKind) async throws {
        let (base, cleanUp) = try kind.make()
        defer { cleanUp() }
        // Every save blocks its thread for a millisecond, as a disk would, and every call records the
        // thread it ran on. Blocking work on one of DAOKit's threads cannot stall other tasks; on a
        // thread of the cooperative pool it would. (Why not time a probe task on the pool instead:
        // other suites' synchronous tests hold the pool's threads for seconds at a time, so such a
        // probe measures them, not DAOKit.)
        let context = ThreadRecordingContext(base: base)
        let dao = LiveNoteDao(context: context)
        let finished = Locked(0)
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
        #expect(finished.withLock { $0 } == 1_000)
        #expect(try await dao.count() == 50)  // the even indexes write n0, n2, … n98
        let threads = context.threadNames
        #expect(
            !threads.isEmpty && threads.allSatisfy { $0.hasPrefix("DAOKit work ") }, "calls ran on \(threads.sorted())")
        // A thousand callers wait in a queue; they never make a thread each.
        #expect(threads.count <= BlockingExecutor.shared.threadCount, "calls ran on \(threads.count) threads")
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

/// A context that records the name of every thread it is called on, and whose writes block that
/// thread for a millisecond first.
final class ThreadRecordingContext: StorageContext {
    let base: any StorageContext
    private let names = Locked<Set<String>>([])
    init(base: any StorageContext) { self.base = base }

    /// The system's names of the threads the context has been called on.
    var threadNames: Set<String> { names.withLock { $0 } }

    private func record() {
        let name = Thread.currentSystemName
        names.withLock { _ = $0.insert(name) }
    }

    var changeNotifier: StorageChangeNotifier? { base.changeNotifier }
    func save<E: Storable>(_ entities: [E]) throws {
        record()
        usleep(1_000)
        try base.save(entities)
    }
    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        record()
        usleep(1_000)
        try base.save(entities, mode: mode)
    }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        record()
        return try base.fetch(type, id: id)
    }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { try base.fetchAll(type) }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { try base.delete(type, ids: ids) }
    func deleteAll<E: Storable>(_ type: E.Type) throws { try base.deleteAll(type) }
    func count<E: Storable>(_ type: E.Type) throws -> Int { try base.count(type) }
}
