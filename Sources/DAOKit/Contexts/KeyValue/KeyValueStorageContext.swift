import Foundation

/// A ``StorageContext`` that keeps one JSON record per entity in a ``KeyValueStore``, such as
/// `UserDefaults` or an ``InMemoryKeyValueStore``.
///
/// ```swift
/// let context = KeyValueStorageContext(store: UserDefaults(suiteName: "app.store")!)
/// ```
///
/// **Layout.** A record lives under `namespace/entityName/key`; every component is
/// percent-escaped, so no two entities or ids collide (`KeyValueKeyScheme.swift` documents
/// the exact rule; ids are put in Unicode NFC first, because Swift treats canonically equivalent
/// strings as one id). A record is the entity as `JSONEncoder` writes it with sorted keys,
/// sealed with a CRC-32C checked on every read: `{"daokit_crc32c":"…","entity":{…}}`.
/// There is no index: the records of a type are the keys under its prefix
/// (``KeyValueStore/keys(withPrefix:)``), so what the store holds is what is stored.
///
/// **Several contexts on one store.** Because no operation reads, changes and writes back a value
/// that other records depend on, contexts on one store and namespace — one store object shared by
/// two contexts, two `UserDefaults` objects for one suite, two processes — never lose each other's
/// records: each record is one key, written whole by whoever saves it. What they do not get from
/// each other is isolation (see below) and an atomic ``SaveMode/insert``/``SaveMode/update`` check:
/// two contexts inserting one id at the same moment can both succeed, the later write winning.
///
/// **All or nothing.** A batch is encoded completely before the first write, and the context
/// reads what each write will replace before making it. When a write fails, the context puts back
/// what the batch had replaced (a key another writer has changed since is left to that writer) and
/// throws, so the store holds what it held before. Readers through the same context never see
/// half a batch: it is applied under the context's lock. Other contexts on the store can see a
/// batch while it is being written, and a process killed in the middle of a batch leaves the
/// records written so far: no key-value store offers a multi-key commit this context could use.
///
/// **Durability.** After each operation that wrote, the context calls the store's
/// ``KeyValueStore/flush()``; for `UserDefaults` off Apple platforms that is `synchronize()`,
/// without which writes are lost when the process ends. A store that slows down with unflushed
/// writes (``KeyValueStore/writesBetweenFlushes``) is also flushed along the way of a large batch.
///
/// **Cost.** A batch of n records is O(n) store operations: every value it replaces is read before
/// the first write, then each record is written once. `fetchAll`, `count` and `deleteAll` list the
/// store's keys, which costs time in proportion to the whole store.
///
/// **Threads.** The context serializes its own access to the store with one lock; records are
/// encoded before and decoded after taking it.
public final class KeyValueStorageContext: StorageContext {
    /// The first component of every store key this context uses.
    public let namespace: String

    /// Sound although `KeyValueStore` values need not be `Sendable`: this context only ever calls
    /// the store inside `withLock`, so it never calls it from two threads at once. (A store shared
    /// with other contexts must be thread-safe itself, as ``KeyValueStore`` documents.) The store's
    /// methods are the only code not DAOKit's that runs under the lock; if they (or an observer they
    /// notify, such as one of `UserDefaults.didChangeNotification`) call this context again, that
    /// call throws ``StorageError/Kind/reentrantCall`` instead of deadlocking.
    let lockedStore: ContextLock<any KeyValueStore>
    /// Announces this context's committed writes (not other contexts' on the same store).
    let notifier = StorageChangeNotifier()

    /// Announces every write made through this context once it is applied. Writes made through
    /// other contexts or processes on the same store are not announced: a key-value store has no
    /// change counter to poll.
    public var changeNotifier: StorageChangeNotifier? { notifier }

    /// Creates a context over `store`, keeping its keys under `namespace`.
    ///
    /// Two contexts with different namespaces share a store without seeing each other's records;
    /// contexts with the same namespace see and keep each other's. Creating a context reads nothing.
    public init(store: some KeyValueStore, namespace: String = "DAOKit") {
        self.namespace = namespace
        self.lockedStore = ContextLock(store)
    }

    /// Inserts or replaces `entities` by id, all or nothing; a later entity in the batch replaces
    /// an earlier one with the same id.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/encodingFailed`` (an entity cannot be
    ///   encoded as JSON; nothing is written) or ``StorageError/Kind/io(_:)`` (the store failed;
    ///   what was written is rolled back).
    public func save<E: Storable>(_ entities: [E]) throws {
        try save(entities, mode: .upsert)
    }

    /// Saves `entities` as `mode` says; the id check, the check of the type's unique indexes and
    /// the writes happen under this context's lock. A type with a unique index costs a read of
    /// every record of the type per save: the store keeps no index to look values up in.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/duplicateID``,
    ///   ``StorageError/Kind/missingID`` or ``StorageError/Code/uniqueViolation`` (the batch
    ///   would leave two records with equal values in a unique index, judged on the state it
    ///   leaves), or any error ``save(_:)`` throws; the store holds what it
    ///   held before, except when only the final ``KeyValueStore/flush()`` fails (``StorageError/Kind/io(_:)``):
    ///   then the batch is saved in this process but may not survive it.
    public func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        if entities.isEmpty { return }
        let entityName = E.entityName
        let versioning = try EntityVersioning.of(E.self)
        let unique = StoredUniqueValues(indexes: E.indexes)
        // Encode everything before taking the lock and before the first write: a bad entity
        // leaves the store untouched, and slow encoding does not block other threads.
        var records: [PendingRecord] = []
        var positions: [String: Int] = [:]
        var keys: [String] = []  // for the id check, which runs no user code under the lock
        for entity in entities {
            let key = entity.id.storageKey
            keys.append(key)
            let storeKey = recordKey(entityName, key)
            let text = try KeyValueRecordFormat.encode(entity, versioning: versioning, location: storeKey)
            if let position = positions[key] {
                records[position].text = text
            } else {
                positions[key] = records.count
                records.append(PendingRecord(key: key, storeKey: storeKey, text: text))
            }
        }
        try lockedStore.withLock { store in
            // What each write replaces, read before the first write so a failing read changes nothing.
            var undo: [UndoEntry] = []
            undo.reserveCapacity(records.count)
            for index in records.indices {
                let record = records[index]
                let previous = try access(entityName, record.key, record.storeKey) {
                    try store.string(forKey: record.storeKey)
                }
                if let previous,
                    let stored = KeyValueRecordFormat.storedVersion(of: previous, location: record.storeKey)
                {
                    // Never a blind rewrite of what a newer version wrote (a damaged record is
                    // replaced, as it always was).
                    try versioning.checkReplacing(storedVersion: stored, key: record.key, location: record.storeKey)
                }
                if let previous, !versioning.keptFields.isEmpty {
                    // Fields the entity declares removed that the stored record holds stay in it.
                    records[index].text = try KeyValueRecordFormat.keeping(
                        versioning.keptFields, from: previous, in: record.text, versioning: versioning,
                        location: record.storeKey)
                }
                undo.append(
                    UndoEntry(
                        key: record.key, storeKey: record.storeKey, written: records[index].text, previous: previous))
            }
            try SaveModeCheck.validate(keys: keys, entityName: entityName, mode: mode) { position in
                positions[keys[position]].map { undo[$0].previous != nil } ?? false
            }
            if !unique.isEmpty { try checkUnique(records, unique: unique, entityName: entityName, in: store) }
            var written = 0
            var flushedMidway = false
            do {
                for record in records {
                    try access(entityName, record.key, record.storeKey) {
                        try store.setString(record.text, forKey: record.storeKey)
                    }
                    written += 1
                    if written < records.count {
                        flushedMidway = try flushIfDue(after: written, store, entityName) || flushedMidway
                    }
                }
            } catch let error as StorageError {
                throw rollBack(undo.prefix(written), in: store, after: error, flushing: flushedMidway)
            }
            try flush(store, entityName)
        }
        notifier.post(entityName: entityName, storageKeys: keys)
    }

    /// The entity stored under `id`, or `nil` when the store holds nothing under its key.
    /// - Throws: ``StorageError`` naming the entity, key and store key:
    ///   ``StorageError/Kind/corruptRecord(_:)`` (its bytes do not match its checksum, or not JSON),
    ///   ``StorageError/Kind/decodingFailed`` (JSON that does not decode as `E`) or
    ///   ``StorageError/Kind/io(_:)``.
    public func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        let key = id.storageKey
        let storeKey = recordKey(E.entityName, key)
        let versioning = try EntityVersioning.of(E.self)
        let text: String? = try lockedStore.withLock { store in
            try access(E.entityName, key, storeKey) { try store.string(forKey: storeKey) }
        }
        guard let text else { return nil }
        return try KeyValueRecordFormat.decode(text, as: E.self, versioning: versioning, key: key, location: storeKey)
    }

    /// Every entity stored under the type's prefix, ordered by store key.
    /// - Throws: ``StorageError`` when a record cannot be read (see ``fetch(_:id:)``): for one
    ///   record, the error `fetch` throws for it; for several, one error whose
    ///   ``StorageError/underlyingError`` is ``RecordFailures``, listing each. The other records
    ///   still read one by one (``fetchReadable(_:)`` returns them).
    public func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        let readable = try readRecords(E.self, collectingReadFailures: false)
        return try readable.valuesIfComplete(entityName: E.entityName, location: nil)
    }

    /// Removes the entities with these ids, all or nothing; unknown ids are ignored.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/io(_:)`` when the store cannot be read
    ///   or written (what was removed is put back) or cannot be flushed.
    public func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws {
        if ids.isEmpty { return }
        try delete(type, storageKeys: ids.map(\.storageKey))
    }

    /// Removes every entity of the type (and the index an earlier version may have left), with the
    /// guarantees of ``delete(_:ids:)``.
    /// - Throws: as ``delete(_:ids:)``; also when the store cannot list its keys.
    public func deleteAll<E: Storable>(_ type: E.Type) throws {
        let entityName = E.entityName
        try lockedStore.withLock { store in
            var targets: [(key: String?, storeKey: String)] = try listRecords(entityName, in: store)
                .map { ($0.key, $0.storeKey) }
            targets.append((nil, KeyValueKeyScheme.legacyIndexKey(namespace: namespace, entityName: entityName)))
            try remove(targets, of: entityName, from: store)
        }
        notifier.post(.entity(entityName))
    }

    /// How many records of the type the store holds under the type's prefix.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/io(_:)`` when the store cannot list its keys.
    public func count<E: Storable>(_ type: E.Type) throws -> Int {
        try lockedStore.withLock { store in try listRecords(E.entityName, in: store).count }
    }

    // MARK: - Store access (called with the lock held)

    private struct PendingRecord {
        let key: String
        let storeKey: String
        var text: String
    }

    /// A record a stored text came from.
    struct StoredRecord {
        let key: String
        let storeKey: String
        let text: String
    }

    /// One write of an operation and what it replaced, to put back if a later write fails.
    private struct UndoEntry {
        let key: String?
        let storeKey: String
        /// What the operation wrote; `nil` when it removed the value.
        let written: String?
        let previous: String?
    }

    private func recordKey(_ entityName: String, _ key: String) -> String {
        KeyValueKeyScheme.recordKey(namespace: namespace, entityName: entityName, storageKey: key)
    }

    /// Throws ``StorageError/Code/uniqueViolation`` when writing `records` would leave two
    /// records of the type with equal values in one of the type's unique indexes: reads every
    /// other record of the type (under the lock, so nothing this context writes comes between the
    /// check and the write) and compares the values in their JSON, as stored. A record whose seal
    /// is broken has no values to compare.
    private func checkUnique(
        _ records: [PendingRecord], unique: StoredUniqueValues, entityName: String, in store: any KeyValueStore
    ) throws {
        let written = Set(records.map(\.key))
        var kept: [UniqueIndexCheck.Entry] = []
        for record in try listRecords(entityName, in: store) where !written.contains(record.key) {
            guard
                let text = try access(
                    entityName, record.key, record.storeKey, { try store.string(forKey: record.storeKey) }),
                let json = KeyValueRecordFormat.entityJSON(of: text, location: record.storeKey)
            else { continue }
            kept.append(UniqueIndexCheck.Entry(key: record.key, tuples: unique.tuples(ofJSON: json)))
        }
        let writing = records.map { record in
            UniqueIndexCheck.Entry(
                key: record.key,
                tuples: unique.tuples(
                    ofJSON: KeyValueRecordFormat.entityJSON(of: record.text, location: record.storeKey) ?? Data()))
        }
        try UniqueIndexCheck.check(entityName: entityName, indexes: unique.indexes, kept: kept, written: writing)
    }

    /// Every record of the type, ordered by store key and read under one lock, decoded as `E`; a
    /// record that does not decode is a failure beside the others. A record the store fails to
    /// read is a failure too when `collectingReadFailures` is set, and otherwise throws.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/io(_:)`` when the store cannot list its
    ///   keys (or read one, without `collectingReadFailures`).
    /// - Parameter olderThan: when given, only the records stamped with an older version (and
    ///   those whose version cannot be read, which fail).
    func readRecords<E: Storable>(_ type: E.Type, collectingReadFailures: Bool, olderThan: Int? = nil) throws
        -> ReadableRecords<E, E.ID>
    {
        let entityName = E.entityName
        let versioning = try EntityVersioning.of(E.self)
        var result = ReadableRecords<E, E.ID>(values: [], failures: [])
        let records: [StoredRecord] = try lockedStore.withLock { store in
            try listRecords(entityName, in: store).compactMap { record in
                do {
                    // A key listed a moment ago may be gone: another context on the store deleted it.
                    guard
                        let text = try access(
                            entityName, record.key, record.storeKey, { try store.string(forKey: record.storeKey) })
                    else { return nil }
                    if let olderThan,
                        let version = KeyValueRecordFormat.storedVersion(of: text, location: record.storeKey),
                        version >= olderThan
                    {
                        return nil
                    }
                    return StoredRecord(key: record.key, storeKey: record.storeKey, text: text)
                } catch let error as StorageError where collectingReadFailures {
                    result.failures.append(UnreadableRecord(storageKey: record.key, error: error))
                    return nil
                }
            }
        }
        result.values.reserveCapacity(records.count)
        for record in records {
            do {
                result.values.append(
                    try KeyValueRecordFormat.decode(
                        record.text, as: E.self, versioning: versioning, key: record.key, location: record.storeKey)
                )
            } catch let error as StorageError {
                result.failures.append(UnreadableRecord(storageKey: record.key, error: error))
            }
        }
        return result
    }

    /// The records of the type the store lists, ordered by store key so that every listing of one
    /// store content has one order; keys under the prefix this context cannot have written are skipped.
    func listRecords(_ entityName: String, in store: any KeyValueStore) throws -> [(key: String, storeKey: String)] {
        let prefix = KeyValueKeyScheme.recordPrefix(namespace: namespace, entityName: entityName)
        let storeKeys = try access(entityName, nil, prefix) { try store.keys(withPrefix: prefix) }
        return storeKeys.sorted().compactMap { storeKey in
            KeyValueKeyScheme.storageKey(ofRecordKey: storeKey, prefix: prefix).map { (key: $0, storeKey: storeKey) }
        }
    }

    /// Removes the values under `targets` that exist, all or nothing, and flushes if it removed any.
    ///
    /// Every value is read before the first removal, as `save` does: besides leaving the store
    /// untouched when a read fails, this keeps `UserDefaults` fast, which rebuilds its merged view
    /// of the suite on the first read after each write (reads between removals made erasing a
    /// large type take seconds).
    func remove(
        _ targets: [(key: String?, storeKey: String)], of entityName: String, from store: any KeyValueStore
    ) throws {
        var undo: [UndoEntry] = []
        for target in targets {
            guard
                let previous = try access(
                    entityName, target.key, target.storeKey, { try store.string(forKey: target.storeKey) })
            else { continue }
            undo.append(UndoEntry(key: target.key, storeKey: target.storeKey, written: nil, previous: previous))
        }
        if undo.isEmpty { return }
        var removed = 0
        var flushedMidway = false
        do {
            for entry in undo {
                try access(entityName, entry.key, entry.storeKey) { try store.removeObject(forKey: entry.storeKey) }
                removed += 1
                if removed < undo.count {
                    flushedMidway = try flushIfDue(after: removed, store, entityName) || flushedMidway
                }
            }
        } catch let error as StorageError {
            throw rollBack(undo.prefix(removed), in: store, after: error, flushing: flushedMidway)
        }
        try flush(store, entityName)
    }

    /// Flushes when `writes` (so far in this operation) is a multiple of the store's
    /// ``KeyValueStore/writesBetweenFlushes``; returns whether it did.
    private func flushIfDue(after writes: Int, _ store: any KeyValueStore, _ entityName: String) throws -> Bool {
        guard let interval = store.writesBetweenFlushes, interval > 0, writes % interval == 0 else { return false }
        try flush(store, entityName)
        return true
    }

    private func flush(_ store: any KeyValueStore, _ entityName: String) throws {
        let prefix = KeyValueKeyScheme.recordPrefix(namespace: namespace, entityName: entityName)
        try access(entityName, nil, prefix) { try store.flush() }
    }

    /// Puts back what the first writes of a failed operation replaced, and returns the error to
    /// throw: the original one, plus what went wrong while undoing if anything did. A key whose
    /// value is no longer what this operation wrote was changed by another context since; its
    /// value is newer than the one to put back, so it is left alone. When part of the operation was
    /// flushed already (`flushing`), the restored values are flushed too.
    private func rollBack(
        _ undo: ArraySlice<UndoEntry>, in store: any KeyValueStore, after error: StorageError, flushing: Bool
    ) -> StorageError {
        var failures: [String] = []
        // All reads before the first write, for `UserDefaults`' sake (see `remove`).
        var current: [String: Result<String?, any Error>] = [:]
        for entry in undo { current[entry.storeKey] = Result { try store.string(forKey: entry.storeKey) } }
        for entry in undo.reversed() {
            do {
                guard try current[entry.storeKey]?.get() == entry.written else { continue }
                if let previous = entry.previous {
                    try store.setString(previous, forKey: entry.storeKey)
                } else {
                    try store.removeObject(forKey: entry.storeKey)
                }
            } catch {
                failures.append("\(entry.storeKey): \(error)")
            }
        }
        if flushing {
            do { try store.flush() } catch { failures.append("flushing the restored values: \(error)") }
        }
        guard !failures.isEmpty, error.code == .io, let message = error.kind.detail else { return error }
        return StorageError(
            .io(message + "; rolling back also failed for " + failures.joined(separator: ", ")),
            entityName: error.entityName, key: error.key, location: error.location,
            underlyingError: error.underlyingError)
    }

    /// Runs a store call, turning what it throws into a ``StorageError`` that names the entity,
    /// the key and the store key.
    func access<T>(_ entityName: String, _ key: String?, _ storeKey: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageError {
            // A store may throw StorageError itself (UserDefaults.flush does); add what it cannot know.
            throw StorageError(
                error.kind, entityName: error.entityName ?? entityName, key: error.key ?? key,
                location: error.location ?? storeKey, underlyingError: error.underlyingError)
        } catch {
            throw StorageError(
                .io(String(describing: error)), entityName: entityName, key: key,
                location: storeKey, underlyingError: error)
        }
    }
}

extension KeyValueStorageContext: ExplainingStorageContext {
    /// Every query reads every record of the type: a key-value store keeps no index.
    public func explain<E: Storable>(_ query: StorageQuery, counting: Bool, for type: E.Type) throws -> StorageAccess {
        StorageAccess(scansEveryRecord: true)
    }
}
