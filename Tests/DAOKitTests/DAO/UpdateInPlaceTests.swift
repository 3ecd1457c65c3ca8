import DAOKit
import DAOKitTestSupport
import Foundation
import Synchronization
import Testing

/// `BaseDao.update(id:attempts:_:)` reads, changes and writes a value as one transaction, and runs
/// again when another writer committed first: on every transactional context, concurrent
/// increments are all kept, and a failed change writes nothing.
@Suite("Update in place: a read-modify-write that loses no concurrent change")
struct UpdateInPlaceTests {
    struct Counter: Codable, Identifiable, Equatable, Sendable {
        var id: String
        var value: Int
    }

    struct CounterEntity: Storable, Equatable, Sendable {
        var id: String
        var value: Int
    }

    typealias CounterDao = BaseDao<Counter, CounterEntity>

    struct Refused: Error {}

    static let factories = ContextFactory.transactional

    @Test(arguments: factories) func theChangeIsWrittenAndReturned(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let counters = CounterDao(context: fresh.context)
        try counters.create(Counter(id: "c", value: 1))
        let written = try counters.update(id: "c") { $0.value += 41 }
        #expect(written == Counter(id: "c", value: 42))
        #expect(try counters.read(id: "c") == Counter(id: "c", value: 42))
    }

    @Test(arguments: factories) func aMissingValueIsNilAndTheChangeDoesNotRun(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let counters = CounterDao(context: fresh.context)
        var calls = 0
        #expect(try counters.update(id: "absent") { _ in calls += 1 } == nil)
        #expect(calls == 0)
        #expect(try counters.count() == 0)
    }

    @Test(arguments: factories) func aChangeThatThrowsWritesNothing(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let counters = CounterDao(context: fresh.context)
        try counters.create(Counter(id: "c", value: 1))
        #expect(throws: Refused.self) {
            try counters.update(id: "c") { counter in
                counter.value = 99
                throw Refused()
            }
        }
        #expect(try counters.read(id: "c") == Counter(id: "c", value: 1))
    }

    @Test(arguments: factories) func aChangeOfTheIDIsRefused(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let counters = CounterDao(context: fresh.context)
        try counters.create(Counter(id: "c", value: 1))
        let error = try #require(throws: StorageError.self) {
            try counters.update(id: "c") { $0.id = "d" }
        }
        #expect(error.code == .unsupported)
        #expect(try counters.read() == [Counter(id: "c", value: 1)])
    }

    @Test(arguments: factories) func concurrentIncrementsAreAllKept(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let counters = CounterDao(context: fresh.context)
        try counters.create(Counter(id: "c", value: 0))
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                for _ in 0..<200 { _ = try counters.update(id: "c", attempts: 1_000) { $0.value += 1 } }
            } catch {
                failures.withLock { $0.append(String(describing: error)) }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try counters.read(id: "c")?.value == 400)
    }

    /// A writer that changes the value between every read and commit: each attempt conflicts,
    /// and after the last one the conflict is thrown, with the other writer's value kept. (SQLite
    /// is not here: its transaction holds the write lock, so the other writer would wait for it.)
    @Test(arguments: [ContextFactory.memory, .keyValueInMemory, .fileJSON])
    func aConflictOnEveryAttemptIsThrownAfterTheLast(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let counters = CounterDao(context: fresh.context)
        try counters.create(Counter(id: "c", value: 0))
        var calls = 0
        let error = try #require(throws: StorageError.self) {
            try counters.update(id: "c", attempts: 3) { counter in
                calls += 1
                try counters.update(Counter(id: "c", value: 100 + calls))  // another writer, meanwhile
                counter.value += 1
            }
        }
        #expect(error.code == .transactionConflict)
        #expect(calls == 3)
        #expect(try counters.read(id: "c") == Counter(id: "c", value: 103))
    }

    @Test(arguments: factories) func theAsyncFormChangesAlike(_ factory: ContextFactory) async throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let counters = CounterDao(context: fresh.context)
        try await counters.create(Counter(id: "c", value: 1))
        #expect(try await counters.update(id: "c") { $0.value *= 10 } == Counter(id: "c", value: 10))
        await #expect(throws: Refused.self) {
            try await counters.update(id: "c") { _ in throw Refused() }
        }
        #expect(try await counters.read(id: "c") == Counter(id: "c", value: 10))
    }

    @Test func aContextWithoutTransactionsIsUnsupported() throws {
        let counters = CounterDao(context: SilentContext())
        try counters.create(Counter(id: "c", value: 1))
        let error = try #require(throws: StorageError.self) {
            try counters.update(id: "c") { $0.value += 1 }
        }
        #expect(error.code == .unsupported)
        #expect(error.entityName == CounterEntity.entityName)
        #expect(try counters.read(id: "c") == Counter(id: "c", value: 1))
    }
}
