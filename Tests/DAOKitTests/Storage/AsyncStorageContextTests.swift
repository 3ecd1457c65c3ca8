import DAOKit
import DAOKitTesting
import Foundation
import Testing

/// BaseDao's `async` overloads await an ``AsyncStorageContext``'s own `async` methods instead of
/// running the synchronous ones on DAOKit's blocking threads.
@Suite("Async storage context")
struct AsyncStorageContextTests {
    @Test func asyncOverloadsCallTheContextsAsyncMethodsAndNeverItsSynchronousOnes() async throws {
        let context = AsyncOnlyContext()
        let notes = BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: context)
        try await notes.create(FixtureNoteEntity(id: "a", body: "one"))
        try await notes.persist([FixtureNoteEntity(id: "b", body: "two")])
        try await notes.update(FixtureNoteEntity(id: "b", body: "three"))
        #expect(try await notes.read(id: "b") == FixtureNoteEntity(id: "b", body: "three"))
        #expect(try await notes.read().count == 2)
        #expect(try await notes.count() == 2)
        try await notes.erase(id: "a")
        #expect(try await notes.storedIDs() == ["b"])
        try await notes.erase()
        #expect(try await notes.count() == 0)
        #expect(context.synchronousCalls.value == 0)
        #expect(context.asynchronousCalls.value == 10)
    }

    @Test func aDuplicateCreateThroughTheAsyncPathIsTheContextsError() async throws {
        let notes = BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: AsyncOnlyContext())
        try await notes.create(FixtureNoteEntity(id: "a", body: "one"))
        let error = try await #require(throws: StorageError.self) { try await notes.create(FixtureNoteEntity(id: "a", body: "two")) }
        #expect(error.kind == .duplicateID)
    }
}

/// An in-memory context whose synchronous methods count their calls, and whose async methods
/// count theirs and do the work.
private final class AsyncOnlyContext: AsyncStorageContext {
    let inner = InMemoryStorageContext()
    let synchronousCalls = AsyncCallCounter()
    let asynchronousCalls = AsyncCallCounter()

    private func sync() { synchronousCalls.increment() }
    private func async() { asynchronousCalls.increment() }

    func save<E: Storable>(_ entities: [E]) throws { sync(); try inner.save(entities) }
    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws { sync(); try inner.save(entities, mode: mode) }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { sync(); return try inner.fetch(type, id: id) }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { sync(); return try inner.fetchAll(type) }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { sync(); try inner.delete(type, ids: ids) }
    func deleteAll<E: Storable>(_ type: E.Type) throws { sync(); try inner.deleteAll(type) }
    func count<E: Storable>(_ type: E.Type) throws -> Int { sync(); return try inner.count(type) }

    func save<E: Storable>(_ entities: [E], mode: SaveMode) async throws { async(); try inner.save(entities, mode: mode) }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) async throws -> E? { async(); return try inner.fetch(type, id: id) }
    func fetchAll<E: Storable>(_ type: E.Type) async throws -> [E] { async(); return try inner.fetchAll(type) }
    func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) async throws -> [E] { async(); return try inner.fetch(type, matching: query) }
    func count<E: Storable>(_ type: E.Type) async throws -> Int { async(); return try inner.count(type) }
    func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) async throws -> Int { async(); return try inner.count(type, matching: filter) }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) async throws { async(); try inner.delete(type, ids: ids) }
    func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) async throws { async(); try inner.delete(type, matching: filter) }
    func deleteAll<E: Storable>(_ type: E.Type) async throws { async(); try inner.deleteAll(type) }
    func fetchReadable<E: Storable>(_ type: E.Type) async throws -> ReadableRecords<E, E.ID> { async(); return try inner.fetchReadable(type) }
    func storedKeys<E: Storable>(_ type: E.Type) async throws -> [String] { async(); return try inner.storedKeys(type) }
    func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) async throws { async(); try inner.delete(type, storageKeys: storageKeys) }
    func reset() async throws { async(); try inner.reset() }
}

private final class AsyncCallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
