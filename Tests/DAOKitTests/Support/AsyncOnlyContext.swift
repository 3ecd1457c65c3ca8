import DAOKit
import Foundation

/// An in-memory context whose synchronous methods count their calls, and whose async methods
/// count theirs and do the work.
final class AsyncOnlyContext: AsyncStorageContext {
    let inner = InMemoryStorageContext()
    let synchronousCalls = AsyncCallCounter()
    let asynchronousCalls = AsyncCallCounter()

    private func sync() { synchronousCalls.increment() }
    private func async() { asynchronousCalls.increment() }

    func save<E: Storable>(_ entities: [E]) throws {
        sync()
        try inner.save(entities)
    }
    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        sync()
        try inner.save(entities, mode: mode)
    }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        sync()
        return try inner.fetch(type, id: id)
    }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        sync()
        return try inner.fetchAll(type)
    }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws {
        sync()
        try inner.delete(type, ids: ids)
    }
    func deleteAll<E: Storable>(_ type: E.Type) throws {
        sync()
        try inner.deleteAll(type)
    }
    func count<E: Storable>(_ type: E.Type) throws -> Int {
        sync()
        return try inner.count(type)
    }

    func save<E: Storable>(_ entities: [E], mode: SaveMode) async throws {
        async()
        try inner.save(entities, mode: mode)
    }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) async throws -> E? {
        async()
        return try inner.fetch(type, id: id)
    }
    func fetchAll<E: Storable>(_ type: E.Type) async throws -> [E] {
        async()
        return try inner.fetchAll(type)
    }
    func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) async throws -> [E] {
        async()
        return try inner.fetch(type, matching: query)
    }
    func count<E: Storable>(_ type: E.Type) async throws -> Int {
        async()
        return try inner.count(type)
    }
    func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) async throws -> Int {
        async()
        return try inner.count(type, matching: filter)
    }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) async throws {
        async()
        try inner.delete(type, ids: ids)
    }
    func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) async throws {
        async()
        try inner.delete(type, matching: filter)
    }
    func deleteAll<E: Storable>(_ type: E.Type) async throws {
        async()
        try inner.deleteAll(type)
    }
    func fetchReadable<E: Storable>(_ type: E.Type) async throws -> ReadableRecords<E, E.ID> {
        async()
        return try inner.fetchReadable(type)
    }
    func storedKeys<E: Storable>(_ type: E.Type) async throws -> [String] {
        async()
        return try inner.storedKeys(type)
    }
    func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) async throws {
        async()
        try inner.delete(type, storageKeys: storageKeys)
    }
    func reset() async throws {
        async()
        try inner.reset()
    }
}

final class AsyncCallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.withLock { count } }
    func increment() { lock.withLock { count += 1 } }
}
