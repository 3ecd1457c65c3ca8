/// A ``StorageContext`` whose work is asynchronous at heart — a database server reached over the
/// network — and that offers it without blocking a thread: ``BaseDao``'s `async` overloads call
/// these methods directly, where for other contexts they run the synchronous ones on DAOKit's
/// blocking threads.
///
/// Each requirement means exactly what the synchronous method of the same name means (all or
/// nothing, the same errors); only the waiting differs. A conforming context keeps its synchronous
/// methods too, so code that is not `async` uses it unchanged.
///
/// Called through these methods, ``BaseDao`` maps values in the calling task and leaves the waiting
/// to the context. A `BaseDao` subclass, whose overrides of the synchronous methods must hold on
/// every path, runs its synchronous methods on DAOKit's threads instead, unless it returns `true`
/// from ``BaseDao/awaitsAsyncContextDirectly``.
public protocol AsyncStorageContext: StorageContext {
    /// ``StorageContext/save(_:mode:)`` without blocking: all or nothing.
    func save<E: Storable>(_ entities: [E], mode: SaveMode) async throws
    /// ``StorageContext/fetch(_:id:)`` without blocking.
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) async throws -> E?
    /// ``StorageContext/fetchAll(_:)`` without blocking.
    func fetchAll<E: Storable>(_ type: E.Type) async throws -> [E]
    /// ``StorageContext/fetch(_:matching:)`` without blocking.
    func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) async throws -> [E]
    /// ``StorageContext/count(_:)`` without blocking.
    func count<E: Storable>(_ type: E.Type) async throws -> Int
    /// ``StorageContext/count(_:matching:)`` without blocking.
    func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) async throws -> Int
    /// ``StorageContext/delete(_:ids:)`` without blocking.
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) async throws
    /// ``StorageContext/delete(_:matching:)`` without blocking.
    func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) async throws
    /// ``StorageContext/deleteAll(_:)`` without blocking.
    func deleteAll<E: Storable>(_ type: E.Type) async throws
    /// ``StorageContext/fetchReadable(_:)`` without blocking.
    func fetchReadable<E: Storable>(_ type: E.Type) async throws -> ReadableRecords<E, E.ID>
    /// ``StorageContext/storedKeys(_:)`` without blocking.
    func storedKeys<E: Storable>(_ type: E.Type) async throws -> [String]
    /// ``StorageContext/delete(_:storageKeys:)`` without blocking.
    func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) async throws
    /// ``StorageContext/reset()`` without blocking.
    func reset() async throws
}
