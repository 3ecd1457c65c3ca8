import DAOKit

/// The synchronous ``StorageContext`` API: each method runs its `async` counterpart and blocks
/// the calling thread until it finishes (see `BlockingBridge.swift`). Same results, same errors;
/// on a SwiftNIO event-loop thread each throws a ``StorageError`` instead of blocking it.
extension PostgresStorageContext {
    func blocking<T>(_ entityName: String?, _ operation: @escaping () async throws -> T) throws -> T {
        try BlockingBridge.wait(entityName: entityName, server: serverDescription, operation)
    }

    public func save<E: Storable>(_ entities: [E]) throws {
        try blocking(E.entityName) { try await self.save(entities, mode: .upsert) }
    }

    public func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        try blocking(E.entityName) { try await self.save(entities, mode: mode) }
    }

    public func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        try blocking(E.entityName) { try await self.fetch(type, id: id) }
    }

    public func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        try blocking(E.entityName) { try await self.fetchAll(type) }
    }

    public func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) throws -> [E] {
        try blocking(E.entityName) { try await self.fetch(type, matching: query) }
    }

    public func explain<E: Storable>(_ query: StorageQuery, counting: Bool, for type: E.Type) throws -> StorageAccess {
        try blocking(E.entityName) { try await self.explain(query, counting: counting, for: type) }
    }

    public func count<E: Storable>(_ type: E.Type) throws -> Int {
        try blocking(E.entityName) { try await self.count(type) }
    }

    public func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws -> Int {
        try blocking(E.entityName) { try await self.count(type, matching: filter) }
    }

    public func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws {
        try blocking(E.entityName) { try await self.delete(type, ids: ids) }
    }

    public func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws {
        try blocking(E.entityName) { try await self.delete(type, matching: filter) }
    }

    public func deleteAll<E: Storable>(_ type: E.Type) throws {
        try blocking(E.entityName) { try await self.deleteAll(type) }
    }

    public func fetchReadable<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        try blocking(E.entityName) { try await self.fetchReadable(type) }
    }

    public func storedKeys<E: Storable>(_ type: E.Type) throws -> [String] {
        try blocking(E.entityName) { try await self.storedKeys(type) }
    }

    public func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) throws {
        try blocking(E.entityName) { try await self.delete(type, storageKeys: storageKeys) }
    }

    public func reset() throws {
        try blocking(nil) { try await self.reset() }
    }
}
