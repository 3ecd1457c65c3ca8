/// A ``StorageContext`` that keeps one JSON record per entity in a ``KeyValueStore``, such as
/// `UserDefaults` or an ``InMemoryKeyValueStore``.
///
/// ```swift
/// let context = KeyValueStorageContext(store: UserDefaults(suiteName: "app.store")!)
/// ```
///
/// **Layout.** A record lives under `namespace/entityName/key` and each entity type has an index,
/// a JSON array of its stored keys, under `namespace/entityName`; every component is
/// percent-escaped, so no two entities or ids collide (`KeyValueKeyScheme.swift` documents
/// the exact rule; ids are put in Unicode NFC first, because Swift treats canonically equivalent
/// strings as one id). A record is the entity as `JSONEncoder` writes it with sorted keys.
/// `fetchAll` and `count` read the index and that type's records, never the whole store.
///
/// **All or nothing.** A batch is encoded completely before the first write. Records are written
/// first and the index last; the index is the commit point, so an entity that is not listed in it
/// is not stored, whatever the store holds under its key. When a write fails the context puts back
/// what it overwrote and throws, so the store holds what it held before.
///
/// **Durability.** After each operation that wrote, the context calls the store's
/// ``KeyValueStore/flush()``; for `UserDefaults` off Apple platforms that is `synchronize()`,
/// without which writes are lost when the process ends.
///
/// **Threads.** The context serializes every access to the store with one lock; records are
/// encoded before and decoded after taking it. Share one context per store and namespace: the
/// context notices changes another context made in between its operations (it re-reads an index
/// whose text changed), but two contexts writing at the same moment can lose an index entry.
public final class KeyValueStorageContext: StorageContext {
    /// The first component of every store key this context uses.
    public let namespace: String

    private struct State {
        let store: any KeyValueStore
        /// Parsed indexes by entity name, reused while the stored index text is unchanged.
        var indexes: [String: KeyValueIndex] = [:]
    }

    /// Sound although `KeyValueStore` values need not be `Sendable`: the store is private to this
    /// context and only ever called inside `withLock`, so it is never used by two threads at once.
    /// The store's methods are the only code not DAOKit's that runs under the lock; if they (or an
    /// observer they notify, such as one of `UserDefaults.didChangeNotification`) call this
    /// context again, that call throws ``StorageError/Kind/reentrantCall``.
    private let state: ContextLock<State>

    /// Creates a context over `store`, keeping its keys under `namespace`.
    ///
    /// Two contexts with different namespaces share a store without seeing each other's records.
    /// Creating a context reads nothing; a new context reads what earlier ones wrote.
    public init(store: some KeyValueStore, namespace: String = "DAOKit") {
        self.namespace = namespace
        self.state = ContextLock(State(store: store))
    }

    /// Inserts or replaces `entities` by id, all or nothing; a later entity in the batch replaces
    /// an earlier one with the same id.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/encodingFailed`` (an entity cannot be
    ///   encoded as JSON; nothing is written), ``StorageError/Kind/io(_:)`` (the store failed; what
    ///   was written is rolled back), or ``StorageError/Kind/corruptRecord(_:)`` (the type's index
    ///   is damaged).
    public func save<E: Storable>(_ entities: [E]) throws {
        try save(entities, mode: .upsert)
    }

    /// Saves `entities` as `mode` says; the id check and the writes happen under one lock.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/duplicateID`` or
    ///   ``StorageError/Kind/missingID``, or any error ``save(_:)`` throws; the store holds what it
    ///   held before, except when only the final ``KeyValueStore/flush()`` fails (``StorageError/Kind/io(_:)``):
    ///   then the batch is saved in this process but may not survive it.
    public func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        if entities.isEmpty { return }
        let entityName = E.entityName
        // Encode everything before taking the lock and before the first write: a bad entity
        // leaves the store untouched, and slow encoding does not block other threads.
        var records: [PendingRecord] = []
        var positions: [String: Int] = [:]
        var keys: [String] = []  // for the id check, which runs no user code under the lock
        for entity in entities {
            let key = entity.id.storageKey
            keys.append(key)
            let storeKey = recordKey(entityName, key)
            let text = try KeyValueRecordFormat.encode(entity, location: storeKey)
            if let position = positions[key] {
                records[position].text = text
            } else {
                positions[key] = records.count
                records.append(PendingRecord(key: key, storeKey: storeKey, text: text))
            }
        }
        try state.withLock { state in
            let store = state.store
            // What each write replaces, read before the first write so a failing read changes nothing.
            var undo: [(storeKey: String, previous: String?)] = []
            undo.reserveCapacity(records.count)
            var newKeys: [String] = []
            do {
                // Scoped so that this copy of the index is gone before the cached one is changed in place.
                let index = try loadIndex(entityName, in: &state)
                try SaveModeCheck.validate(keys: keys, entityName: entityName, mode: mode) { index.contains(keys[$0]) }
                for record in records {
                    if index.contains(record.key) {
                        let previous = try access(entityName, record.key, record.storeKey) {
                            try store.string(forKey: record.storeKey)
                        }
                        undo.append((record.storeKey, previous))
                    } else {
                        undo.append((record.storeKey, nil))
                        newKeys.append(record.key)
                    }
                }
            }
            var written = 0
            do {
                for record in records {
                    try access(entityName, record.key, record.storeKey) {
                        try store.setString(record.text, forKey: record.storeKey)
                    }
                    written += 1
                }
                if !newKeys.isEmpty {
                    // The commit point: once the index lists the new keys, the batch is stored.
                    let indexKey = indexKey(entityName)
                    let text = state.indexes[entityName]!.text(adding: newKeys)
                    try access(entityName, nil, indexKey) { try store.setString(text, forKey: indexKey) }
                    state.indexes[entityName]!.commit(adding: newKeys, text: text)
                }
            } catch let error as StorageError {
                throw rollBack(undo.prefix(written), in: store, after: error)
            }
            try flush(store, entityName)
        }
    }

    /// The entity stored under `id`, or `nil` when the type's index does not list it.
    /// - Throws: ``StorageError`` naming the entity, key and store key:
    ///   ``StorageError/Kind/corruptRecord(_:)`` (not JSON, or listed but missing),
    ///   ``StorageError/Kind/decodingFailed`` (JSON that does not decode as `E`) or
    ///   ``StorageError/Kind/io(_:)``.
    public func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        let key = id.storageKey
        let entityName = E.entityName
        let storeKey = recordKey(entityName, key)
        let text: String? = try state.withLock { state in
            guard try loadIndex(entityName, in: &state).contains(key) else { return nil }
            return try readListedRecord(entityName, key, storeKey, from: state.store)
        }
        guard let text else { return nil }
        return try KeyValueRecordFormat.decode(text, as: E.self, key: key, location: storeKey)
    }

    /// Every entity the type's index lists, in the order they were first saved.
    /// - Throws: ``StorageError`` when a record cannot be read (see ``fetch(_:id:)``): for one
    ///   record, the error `fetch` throws for it; for several, one error whose
    ///   ``StorageError/underlyingError`` is ``RecordFailures``, listing each. The other records
    ///   still read one by one.
    public func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        let entityName = E.entityName
        let texts: [(key: String, storeKey: String, text: String)] = try state.withLock { state in
            let index = try loadIndex(entityName, in: &state)
            return try index.keys.map { key in
                let storeKey = recordKey(entityName, key)
                return (key, storeKey, try readListedRecord(entityName, key, storeKey, from: state.store))
            }
        }
        var entities: [E] = []
        entities.reserveCapacity(texts.count)
        var failures: [StorageError] = []
        for record in texts {
            do {
                entities.append(try KeyValueRecordFormat.decode(record.text, as: E.self, key: record.key, location: record.storeKey))
            } catch let error as StorageError {
                failures.append(error)
            }
        }
        if failures.count == 1 { throw failures[0] }
        if failures.count > 1 { throw StorageError(combining: failures, entityName: entityName, location: nil) }
        return entities
    }

    /// Removes the entities with these ids; unknown ids are ignored.
    ///
    /// The index is rewritten first (the commit point); the records are then removed one by one,
    /// and a record the store fails to remove is left behind unlisted, which is harmless: it is
    /// never read, and saving its id again overwrites it.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/io(_:)`` when the index cannot be
    ///   written (nothing is deleted) or the store cannot be flushed.
    public func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws {
        if ids.isEmpty { return }
        let entityName = E.entityName
        let keys = ids.map(\.storageKey)
        try state.withLock { state in
            let index = try loadIndex(entityName, in: &state)
            let doomed = Set(keys.filter(index.contains))
            if doomed.isEmpty { return }
            try replaceIndex(with: index.removing(doomed), of: entityName, in: &state)
            removeUnlistedRecords(doomed, of: entityName, from: state.store)
            try flush(state.store, entityName)
        }
    }

    /// Removes every entity of the type, with the guarantees of ``delete(_:ids:)``.
    /// - Throws: as ``delete(_:ids:)``.
    public func deleteAll<E: Storable>(_ type: E.Type) throws {
        let entityName = E.entityName
        try state.withLock { state in
            let index = try loadIndex(entityName, in: &state)
            if index.count == 0 { return }
            try replaceIndex(with: KeyValueIndex(), of: entityName, in: &state)
            removeUnlistedRecords(index.keys, of: entityName, from: state.store)
            try flush(state.store, entityName)
        }
    }

    /// How many entities the type's index lists.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/corruptRecord(_:)`` when the index is
    ///   damaged, or ``StorageError/Kind/io(_:)``.
    public func count<E: Storable>(_ type: E.Type) throws -> Int {
        let entityName = E.entityName
        return try state.withLock { state in try loadIndex(entityName, in: &state).count }
    }

    // MARK: - Store access (called with the lock held)

    private struct PendingRecord {
        let key: String
        let storeKey: String
        var text: String
    }

    private func recordKey(_ entityName: String, _ key: String) -> String {
        KeyValueKeyScheme.recordKey(namespace: namespace, entityName: entityName, storageKey: key)
    }

    private func indexKey(_ entityName: String) -> String {
        KeyValueKeyScheme.indexKey(namespace: namespace, entityName: entityName)
    }

    /// The type's index: the cached one while the stored text is unchanged (an identity check
    /// for the in-memory store), otherwise parsed again.
    private func loadIndex(_ entityName: String, in state: inout State) throws -> KeyValueIndex {
        let indexKey = indexKey(entityName)
        let store = state.store
        let text = try access(entityName, nil, indexKey) { try store.string(forKey: indexKey) }
        if let cached = state.indexes[entityName], cached.storedText == text { return cached }
        var index = KeyValueIndex()
        if let text {
            do {
                index = try KeyValueIndex(parsing: text)
            } catch {
                throw StorageError(.corruptRecord("the index is not a JSON array of strings"),
                                   entityName: entityName, location: indexKey, underlyingError: error)
            }
        }
        state.indexes[entityName] = index
        return index
    }

    /// Writes `index` (or removes it when empty) and caches it once the store has accepted it.
    private func replaceIndex(with index: KeyValueIndex, of entityName: String, in state: inout State) throws {
        let indexKey = indexKey(entityName)
        let store = state.store
        try access(entityName, nil, indexKey) {
            if let text = index.storedText {
                try store.setString(text, forKey: indexKey)
            } else {
                try store.removeObject(forKey: indexKey)
            }
        }
        state.indexes[entityName] = index
    }

    private func readListedRecord(
        _ entityName: String, _ key: String, _ storeKey: String, from store: any KeyValueStore
    ) throws -> String {
        guard let text = try access(entityName, key, storeKey, { try store.string(forKey: storeKey) }) else {
            throw StorageError(.corruptRecord("listed in the index, but the store has no string under its key"),
                               entityName: entityName, key: key, location: storeKey)
        }
        return text
    }

    private func removeUnlistedRecords<Keys: Sequence<String>>(
        _ keys: Keys, of entityName: String, from store: any KeyValueStore
    ) {
        for key in keys {
            // Best effort by design: the index no longer lists the key, so a leftover value is
            // invisible, and failing here would report a delete that did in fact happen.
            try? store.removeObject(forKey: recordKey(entityName, key))
        }
    }

    private func flush(_ store: any KeyValueStore, _ entityName: String) throws {
        try access(entityName, nil, indexKey(entityName)) { try store.flush() }
    }

    /// Puts back what the first writes of a failed batch replaced, and returns the error to throw:
    /// the original one, plus what went wrong while undoing if anything did.
    private func rollBack(
        _ undo: ArraySlice<(storeKey: String, previous: String?)>,
        in store: any KeyValueStore,
        after error: StorageError
    ) -> StorageError {
        var failures: [String] = []
        for (storeKey, previous) in undo.reversed() {
            do {
                if let previous {
                    try store.setString(previous, forKey: storeKey)
                } else {
                    try store.removeObject(forKey: storeKey)
                }
            } catch {
                failures.append("\(storeKey): \(error)")
            }
        }
        guard !failures.isEmpty, case let .io(message) = error.kind else { return error }
        return StorageError(.io(message + "; rolling back also failed for " + failures.joined(separator: ", ")),
                            entityName: error.entityName, key: error.key, location: error.location,
                            underlyingError: error.underlyingError)
    }

    /// Runs a store call, turning what it throws into a ``StorageError`` that names the entity,
    /// the key and the store key.
    private func access<T>(_ entityName: String, _ key: String?, _ storeKey: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageError {
            // A store may throw StorageError itself (UserDefaults.flush does); add what it cannot know.
            throw StorageError(error.kind, entityName: error.entityName ?? entityName, key: error.key ?? key,
                               location: error.location ?? storeKey, underlyingError: error.underlyingError)
        } catch {
            throw StorageError(.io(String(describing: error)), entityName: entityName, key: key,
                               location: storeKey, underlyingError: error)
        }
    }
}
