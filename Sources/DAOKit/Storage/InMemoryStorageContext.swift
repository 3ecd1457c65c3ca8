/// A ``StorageContext`` that keeps entities in memory: for tests, previews and caches.
///
/// It stores snapshots: `save` keeps a copy of each entity and `fetch` returns a fresh copy, so
/// mutating a class entity after saving or fetching it never changes what is stored. Copies are
/// made with ``EntityMapper``, which is why an entity whose own `encode(to:)` or `init(from:)`
/// fails cannot be stored or read here either.
///
/// Safe to use from many threads at once: every operation takes one lock, and a batch is applied
/// under it in one step, so readers never see half a batch. Nothing outlives the instance.
///
/// No user code runs under the lock: ids, storage keys and entity names are worked out and
/// entities copied before it is taken, and the snapshots a call replaces or removes are released
/// after it is dropped (a class entity's `deinit` runs then). So an `id` getter, `encode(to:)` or
/// `deinit` that calls the context again works.
public final class InMemoryStorageContext: StorageContext {
    /// Entity name → storage key → the stored snapshot.
    private typealias Tables = [String: [String: any Storable]]

    /// Sound although entities are not `Sendable`: a stored snapshot is created by this context,
    /// never handed out (callers only get copies of it) and never mutated once stored (a save
    /// replaces the dictionary entry, it does not change the old object). So a snapshot read under
    /// the lock and copied after releasing it cannot be changed by another thread meanwhile.
    private let tables = ContextLock(Tables())
    /// Lenient, so a stored entity always copies back into its own type.
    private let copier = EntityMapper()

    /// Creates an empty context.
    public init() {}

    /// Stores copies of `entities`, replacing any stored with the same ids; a later entity in the
    /// batch replaces an earlier one with the same id.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/encodingFailed`` when an entity cannot
    ///   be copied (its `encode(to:)` or `init(from:)` throws); nothing is stored then.
    public func save<E: Storable>(_ entities: [E]) throws {
        try save(entities, mode: .upsert)
    }

    /// Stores copies of `entities` as `mode` says; the id check and the write happen under one lock.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/duplicateID``,
    ///   ``StorageError/Kind/missingID`` or ``StorageError/Kind/encodingFailed``; nothing is stored then.
    public func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        if entities.isEmpty { return }
        let entityName = E.entityName
        // Copy before taking the lock: copying runs user code and is the slow part.
        let snapshots = try entities.map { entity in (key: entity.id.storageKey, value: try copyIn(entity)) }
        let keys = snapshots.map(\.key)
        let replaced = try tables.withLock(entityName: entityName) { tables in
            // No local copy of the table may outlive the check: it would make the writes below copy
            // the whole table instead of changing it in place.
            try SaveModeCheck.validate(keys: keys, entityName: entityName, mode: mode) { position in
                tables[entityName]?[keys[position]] != nil
            }
            var replaced: [any Storable] = []
            for (key, value) in snapshots {
                if let old = tables[entityName, default: [:]].updateValue(value, forKey: key) { replaced.append(old) }
            }
            return replaced
        }
        withExtendedLifetime(replaced) {}  // released here, after the lock (see the type's description)
    }

    /// A copy of the entity stored under `id`, or `nil`.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/decodingFailed`` when the stored entity
    ///   cannot be copied back as `E`.
    public func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        let key = id.storageKey
        let entityName = E.entityName
        guard let snapshot = try tables.withLock(entityName: entityName, { $0[entityName]?[key] }) else { return nil }
        return try copyOut(snapshot, as: E.self, key: key)
    }

    /// Copies of every stored entity of the type, in no particular order.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/decodingFailed`` when an entity cannot
    ///   be copied back as `E`: for one, the error ``fetch(_:id:)`` throws for it; for several,
    ///   one whose ``StorageError/underlyingError`` is ``RecordFailures``, listing each.
    public func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        let readable = try fetchReadable(type)
        try StorageError.throwIfAny(readable.failures.map(\.error), entityName: E.entityName, location: nil)
        return readable.values
    }

    /// Removes the entities with these ids; unknown ids are ignored.
    /// - Throws: only ``StorageError/Kind/reentrantCall`` (see ``StorageError/Kind/reentrantCall``).
    public func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws {
        if ids.isEmpty { return }
        try delete(type, storageKeys: ids.map(\.storageKey))
    }

    /// Removes every entity of the type.
    /// - Throws: only ``StorageError/Kind/reentrantCall``.
    public func deleteAll<E: Storable>(_ type: E.Type) throws {
        let entityName = E.entityName
        let removed = try tables.withLock(entityName: entityName) { tables in tables.removeValue(forKey: entityName) }
        withExtendedLifetime(removed) {}  // released here, after the lock
    }

    /// How many entities of the type are stored.
    /// - Throws: only ``StorageError/Kind/reentrantCall``.
    public func count<E: Storable>(_ type: E.Type) throws -> Int {
        let entityName = E.entityName
        return try tables.withLock(entityName: entityName) { tables in tables[entityName]?.count ?? 0 }
    }

    /// Copies of every stored entity that can be copied back as `E`, and a
    /// ``StorageError/Kind/decodingFailed`` failure for each one that cannot.
    /// - Throws: only ``StorageError/Kind/reentrantCall``.
    public func fetchReadable<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        let entityName = E.entityName
        let snapshots = try tables.withLock(entityName: entityName) { tables in tables[entityName].map { Array($0) } ?? [] }
        var result = ReadableRecords<E, E.ID>(values: [], failures: [])
        result.values.reserveCapacity(snapshots.count)
        for (key, snapshot) in snapshots {
            do {
                result.values.append(try copyOut(snapshot, as: E.self, key: key))
            } catch let error as StorageError {
                result.failures.append(UnreadableRecord(storageKey: key, error: error))
            }
        }
        return result
    }

    /// The storage keys of every stored entity of the type, in no particular order.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/reentrantCall`` when called from code
    ///   this context runs under its lock; nothing else.
    public func storedKeys<E: Storable>(_ type: E.Type) throws -> [String] {
        let entityName = E.entityName
        return try tables.withLock(entityName: entityName) { tables in tables[entityName].map { Array($0.keys) } ?? [] }
    }

    /// Removes the entities under these storage keys; unknown keys are ignored.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/reentrantCall`` when called from code
    ///   this context runs under its lock; nothing else.
    public func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) throws {
        let entityName = E.entityName
        let removed = try tables.withLock(entityName: entityName) { tables in
            var removed: [any Storable] = []
            for key in storageKeys {
                if let old = tables[entityName]?.removeValue(forKey: key) { removed.append(old) }  // in place, see `save`
            }
            if tables[entityName]?.isEmpty == true { tables[entityName] = nil }
            return removed
        }
        withExtendedLifetime(removed) {}  // released here, after the lock (see the type's description)
    }

    private func copyIn<E: Storable>(_ entity: E) throws -> any Storable {
        do {
            return try copier.map(entity, to: E.self)
        } catch {
            throw StorageError(.encodingFailed, entityName: E.entityName, key: entity.id.storageKey,
                               underlyingError: error)
        }
    }

    private func copyOut<E: Storable>(_ snapshot: any Storable, as type: E.Type, key: String) throws -> E {
        do {
            if let typed = snapshot as? E {
                return try copier.map(typed, to: E.self)
            }
            // Another type saved under the same entity name: read it the way a serializing context
            // would, field by field.
            return try copier.map(snapshot, to: E.self)
        } catch {
            throw StorageError(.decodingFailed, entityName: E.entityName, key: key, underlyingError: error)
        }
    }
}
