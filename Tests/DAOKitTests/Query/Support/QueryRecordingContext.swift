import DAOKit
import DAOKitInternals
import Foundation

/// A context that forwards every call to a shipped context and records the queries BaseDao hands
/// it: lets a test see what was pushed down (a filter, a sort, a page, an exact count or delete)
/// while the shipped context still does all the work.
final class QueryRecordingContext: StorageContext, Sendable {
    /// What the context was asked, in order.
    enum Request: Sendable, Equatable {
        case fetch(StorageQuery)
        case count(StorageFilter)
        case delete(StorageFilter)
        case fetchAll
    }

    let inner: any StorageContext
    private let log = Locked<[Request]>([])

    init(_ inner: any StorageContext) {
        self.inner = inner
    }

    /// The requests so far; clears the log.
    func takeRequests() -> [Request] {
        log.withLock { requests in
            defer { requests = [] }
            return requests
        }
    }

    private func record(_ request: Request) {
        log.withLock { $0.append(request) }
    }

    func save<E: Storable>(_ entities: [E]) throws { try inner.save(entities) }
    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws { try inner.save(entities, mode: mode) }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { try inner.fetch(type, id: id) }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        record(.fetchAll)
        return try inner.fetchAll(type)
    }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { try inner.delete(type, ids: ids) }
    func deleteAll<E: Storable>(_ type: E.Type) throws { try inner.deleteAll(type) }
    func count<E: Storable>(_ type: E.Type) throws -> Int { try inner.count(type) }
    func fetchReadable<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> { try inner.fetchReadable(type) }
    func storedKeys<E: Storable>(_ type: E.Type) throws -> [String] { try inner.storedKeys(type) }
    func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) throws {
        try inner.delete(type, storageKeys: storageKeys)
    }

    func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) throws -> [E] {
        record(.fetch(query))
        return try inner.fetch(type, matching: query)
    }

    func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws -> Int {
        record(.count(filter))
        return try inner.count(type, matching: filter)
    }

    func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws {
        record(.delete(filter))
        try inner.delete(type, matching: filter)
    }
}
