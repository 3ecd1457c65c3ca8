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
/// **Indexes.** For each of the entity type's ``Storable/indexes`` it keeps the entities ordered
/// by the index's fields, updated under the same lock as the write. A query whose filter fixes an
/// index's leading field with `==` or bounds it with `<`/`>` (then optionally bounds the next
/// field, or sorts by it) reads only the entities in that range; and when every field the query
/// reads is indexed it is answered under the lock without running any entity code, paging
/// included. Each stored entity carries the values of its type's indexed fields (about 30 bytes
/// plus 25 per field), which the first index shares and every other index copies, and 48 bytes
/// per index (an entry keeps its first three integer, date or flag values inline, so that
/// searching an index rarely reads the values), beside the snapshot.
///
/// No user code runs under the lock: ids, storage keys and entity names are worked out and
/// entities copied before it is taken, and the snapshots a call replaces or removes are released
/// after it is dropped (a class entity's `deinit` runs then). So an `id` getter, `encode(to:)` or
/// `deinit` that calls the context again works.
public final class InMemoryStorageContext: StorageContext {
    /// Entity name → its table; and the version the next stored record gets.
    struct State {
        var tables: [String: InMemoryTable] = [:]
        /// The ``InMemoryRecord/order`` the next new key gets.
        var nextOrder: UInt64 = 0
        /// Counts writes: a transaction compares it to find what others changed after it began.
        var generation: UInt64 = 0
        /// The ``generation`` of the last write to each entity type.
        var changedAt: [String: UInt64] = [:]
        /// The ``generation`` of the last ``reset()``.
        var resetAt: UInt64 = 0
        /// A transaction's handle: each entity type's table is copied from the context when the
        /// handle first touches the type, with the context's ``generation`` then.
        var loaded: [String: UInt64] = [:]
        /// What a transaction's handle wrote since it began: the types it commits, and whether
        /// it reset the store (then it commits every table and loads none).
        var written: Set<String> = []
        var wasReset = false
        /// The ``generation`` of the context when a transaction's handle began.
        var baseGeneration: UInt64 = 0
        /// `false` once a transaction's body has returned: its handle refuses every call.
        var isOpen = true

        mutating func markChanged(_ entityName: String) {
            generation &+= 1
            changedAt[entityName] = generation
            written.insert(entityName)
        }

        mutating func markReset() {
            generation &+= 1
            resetAt = generation
            wasReset = true
        }
    }

    /// Sound although entities are not `Sendable`: a stored snapshot is created by this context,
    /// never handed out (callers only get copies of it) and never mutated once stored (a save
    /// replaces the dictionary entry, it does not change the old object). So a snapshot read under
    /// the lock and copied after releasing it cannot be changed by another thread meanwhile.
    let state: ContextLock<State>
    /// Lenient, so a stored entity always copies back into its own type.
    private let copier = EntityMapper()
    /// Announces every committed write, after its lock is dropped; `nil` for a transaction's
    /// handle, whose writes are announced by its context when it commits.
    let notifier: StorageChangeNotifier?

    /// Announces every write after it is applied (see ``StorageChangeNotifier``); `nil` for a
    /// transaction's handle (its writes are announced when the transaction commits).
    public var changeNotifier: StorageChangeNotifier? { notifier }

    /// Creates an empty context.
    public init() {
        state = ContextLock(State())
        notifier = StorageChangeNotifier()
        parent = nil
    }

    /// The context a transaction's handle copies its tables from and commits into; `nil` for a
    /// context that is no handle.
    let parent: InMemoryStorageContext?

    /// A transaction's handle on `parent`, which began at the parent's `generation`.
    init(transactionOf parent: InMemoryStorageContext, generation: UInt64) {
        var state = State()
        state.baseGeneration = generation
        self.state = ContextLock(state)
        self.parent = parent
        notifier = nil
    }

    /// Runs `body` on the state, under the lock.
    /// - Throws: ``StorageError/Kind/transactionClosed`` on a handle whose transaction ended;
    ///   ``StorageError/Kind/reentrantCall`` (see ``ContextLock``); what `body` throws.
    func withState<Result>(entityName: String? = nil, _ body: (inout State) throws -> Result) throws
        -> Result
    {
        try state.withLock(entityName: entityName) { state in
            guard state.isOpen else { throw StorageError(.transactionClosed, entityName: entityName) }
            if let parent, let entityName, !state.wasReset, state.loaded[entityName] == nil {
                // A copy that shares the records until either side writes one: a shared record is
                // replaced, never changed in place (see `InMemoryTable`), so neither sees the
                // other's writes, and taking a table costs nothing in proportion to its size. The
                // parent's lock is taken inside the handle's, never the other way round.
                let (table, generation, nextOrder) = try parent.withState(entityName: entityName) { parentState in
                    (parentState.tables[entityName], parentState.generation, parentState.nextOrder)
                }
                state.tables[entityName] = table
                state.loaded[entityName] = generation
                // New keys must order after every copied record (an index orders equal values by it).
                state.nextOrder = max(state.nextOrder, nextOrder)
            }
            return try body(&state)
        }
    }

    /// Stores copies of `entities`, replacing any stored with the same ids; a later entity in the
    /// batch replaces an earlier one with the same id.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/encodingFailed`` when an entity cannot
    ///   be copied (its `encode(to:)` or `init(from:)` throws), or ``StorageError/Code/uniqueViolation``
    ///   (see ``save(_:mode:)``); nothing is stored then.
    public func save<E: Storable>(_ entities: [E]) throws {
        try save(entities, mode: .upsert)
    }

    /// Stores copies of `entities` as `mode` says; the id check, the check of the type's unique
    /// indexes (through a map of each one's values) and the write happen under one lock.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/duplicateID``,
    ///   ``StorageError/Kind/missingID``, ``StorageError/Code/uniqueViolation`` (the batch would
    ///   leave two records with equal values in a unique index; judged on the state it leaves, so
    ///   records of the batch may swap values) or ``StorageError/Kind/encodingFailed``; nothing is
    ///   stored then.
    public func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        if entities.isEmpty { return }
        let entityName = E.entityName
        let layout = IndexLayout.of(E.self)
        // Copy and read the indexed fields before taking the lock: both run user code and are the
        // slow part.
        let copies = try entities.map { entity in try copyIn(entity, layout: layout) }
        let keys = copies.map(\.key)
        let uniqueBatch = layout.hasUniqueIndex ? copies.map { (key: $0.key, values: $0.values) } : []
        let replaced = try withState(entityName: entityName) { state in
            // No local copy of the table may outlive the check: it would make the writes below copy
            // the whole table instead of changing it in place.
            try SaveModeCheck.validate(keys: keys, entityName: entityName, mode: mode) { position in
                state.tables[entityName]?.records[keys[position]] != nil
            }
            if state.tables[entityName] == nil {
                state.tables[entityName] = InMemoryTable(layout: layout)
            } else if state.tables[entityName]!.layout != layout {
                if layout.hasUniqueIndex {
                    throw StorageError(
                        .unsupported(
                            "another entity type with other indexes is stored under this entity name, so its unique indexes cannot be kept"
                        ), entityName: entityName)
                }
                state.tables[entityName]!.dropIndexes()
            }
            if layout.hasUniqueIndex {
                do {
                    try state.tables[entityName]!.checkUnique(uniqueBatch, entityName: entityName)
                } catch {
                    if state.tables[entityName]!.count == 0 { state.tables[entityName] = nil }
                    throw error
                }
            }
            state.markChanged(entityName)
            var replaced: [any Storable] = []
            for (key, snapshot, values) in copies {
                if let old = state.tables[entityName]!.store(
                    snapshot, values: values, forKey: key, order: state.nextOrder)
                {
                    replaced.append(old)
                } else {
                    state.nextOrder &+= 1
                }
            }
            return replaced
        }
        withExtendedLifetime(replaced) {}  // released here, after the lock (see the type's description)
        notifier?.post(entityName: entityName, storageKeys: keys)
    }

    /// A copy of the entity stored under `id`, or `nil`.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/decodingFailed`` when the stored entity
    ///   cannot be copied back as `E`.
    public func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        let key = id.storageKey
        let entityName = E.entityName
        guard
            let snapshot = try withState(entityName: entityName, { $0.tables[entityName]?.records[key]?.snapshot })
        else {
            return nil
        }
        return try copyOut(snapshot, as: E.self, key: key)
    }

    /// Copies of every stored entity of the type, in no particular order.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/decodingFailed`` when an entity cannot
    ///   be copied back as `E`: for one, the error ``fetch(_:id:)`` throws for it; for several,
    ///   one whose ``StorageError/underlyingError`` is ``RecordFailures``, listing each.
    public func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        let readable = try fetchReadable(type)
        return try readable.valuesIfComplete(entityName: E.entityName, location: nil)
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
        let removed = try withState(entityName: entityName) { state in
            state.markChanged(entityName)
            return state.tables.removeValue(forKey: entityName)
        }
        withExtendedLifetime(removed) {}  // released here, after the lock
        if removed != nil { notifier?.post(.entity(entityName)) }
    }

    /// Removes every entity of every type in one step under the lock, and announces
    /// ``StorageChange/everything``.
    /// - Throws: only ``StorageError/Kind/reentrantCall``; nothing is removed then.
    public func reset() throws {
        let removed = try withState { state in
            state.markReset()
            defer { state.tables = [:] }
            return state.tables
        }
        withExtendedLifetime(removed) {}  // released here, after the lock
        notifier?.post(.everything)
    }

    /// How many entities of the type are stored.
    /// - Throws: only ``StorageError/Kind/reentrantCall``.
    public func count<E: Storable>(_ type: E.Type) throws -> Int {
        let entityName = E.entityName
        return try withState(entityName: entityName) { state in state.tables[entityName]?.count ?? 0 }
    }

    /// Copies of every stored entity that can be copied back as `E`, and a
    /// ``StorageError/Kind/decodingFailed`` failure for each one that cannot.
    /// - Throws: only ``StorageError/Kind/reentrantCall``.
    public func fetchReadable<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        let entityName = E.entityName
        let snapshots = try withState(entityName: entityName) { state in
            state.tables[entityName].map { $0.records.map { ($0.key, $0.value.snapshot) } } ?? []
        }
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
        return try withState(entityName: entityName) { state in
            state.tables[entityName].map { Array($0.records.keys) } ?? []
        }
    }

    /// Removes the entities under these storage keys; unknown keys are ignored.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/reentrantCall`` when called from code
    ///   this context runs under its lock; nothing else.
    public func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) throws {
        let entityName = E.entityName
        let removed = try withState(entityName: entityName) { state in
            var removed: [any Storable] = []
            for key in storageKeys {
                // In place, see `save`.
                if let old = state.tables[entityName]?.remove(forKey: key) { removed.append(old) }
            }
            if !removed.isEmpty { state.markChanged(entityName) }
            if state.tables[entityName]?.count == 0 { state.tables[entityName] = nil }
            return removed
        }
        withExtendedLifetime(removed) {}  // released here, after the lock (see the type's description)
        if !removed.isEmpty { notifier?.post(entityName: entityName, storageKeys: storageKeys) }
    }

    // MARK: - Queries

    /// Copies of the entities `query` selects: through an index where one applies (see the type's
    /// description), otherwise by reading the queried fields of every entity; only the entities
    /// returned are copied back.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/decodingFailed`` when a selected entity
    ///   cannot be copied back as `E`, ``StorageError/Kind/encodingFailed`` when one's fields
    ///   cannot be read, ``StorageError/Kind/reentrantCall``, or ``StorageError/Code/invalidQuery``
    ///   for a negative limit or offset.
    public func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) throws -> [E] {
        try query.validate(entityName: E.entityName)
        return try selected(E.self, by: query).map { try copyOut($0.snapshot, as: E.self, key: $0.key) }
    }

    /// How many entities `filter` holds for, counted as ``fetch(_:matching:)`` selects them,
    /// without copying any.
    /// - Throws: as ``fetch(_:matching:)``.
    public func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws -> Int {
        let entityName = E.entityName
        let (counted, foreign) = try withState(entityName: entityName) { state in
            (
                state.tables[entityName]?.count(matching: filter),
                state.tables[entityName]?.snapshots(notOf: E.self) ?? []
            )
        }
        try requireReadable(foreign, as: E.self)
        return try counted?.count(E.self, filter: filter) ?? 0
    }

    /// Removes the entities `filter` holds for. When every field the filter reads is indexed the
    /// selection and the removal happen under one lock; otherwise the filter is evaluated outside
    /// it and an entity replaced meanwhile by another thread is left alone (it is not the one that
    /// matched).
    /// - Throws: as ``fetch(_:matching:)``; nothing is removed then.
    public func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws {
        let entityName = E.entityName
        let query = StorageQuery(filter: filter)
        let (selection, foreign) = try withState(entityName: entityName) {
            state -> (InMemoryTable.Selection<[Selected]>?, [Selected]) in
            guard var table = state.tables[entityName] else { return (nil, []) }
            let foreign = table.snapshots(notOf: E.self)
            let selection = table.select(query)
            // Entities of another type under this name must be checked first, outside the lock:
            // the selection is then evaluated outside it too, as candidates.
            guard case .answer(let doomed) = selection, foreign.isEmpty else {
                if case .answer(let doomed) = selection { return (.candidates(doomed), foreign) }
                return (selection, foreign)
            }
            state.tables[entityName] = nil  // changed in place below, see `save`
            if !doomed.isEmpty { state.markChanged(entityName) }
            for selected in doomed { _ = table.remove(forKey: selected.key) }
            if table.count > 0 { state.tables[entityName] = table }
            return (.answer(doomed), [])
        }
        try requireReadable(foreign, as: E.self)
        guard case .candidates(let candidates)? = selection else {
            if case .answer(let doomed)? = selection, !doomed.isEmpty {
                notifier?.post(entityName: entityName, storageKeys: doomed.map(\.key))
            }
            return
        }
        let doomed = try InMemoryTable.evaluate(candidates, E.self, query: query)
        let removed = try withState(entityName: entityName) { state in
            var removed: [any Storable] = []
            for selected in doomed
            where state.tables[entityName]?.records[selected.key] === selected.record
                && selected.record.revision == selected.revision
            {
                if let old = state.tables[entityName]?.remove(forKey: selected.key) { removed.append(old) }
            }
            if !removed.isEmpty { state.markChanged(entityName) }
            if state.tables[entityName]?.count == 0 { state.tables[entityName] = nil }
            return removed
        }
        withExtendedLifetime(removed) {}  // released here, after the lock
        if !removed.isEmpty { notifier?.post(entityName: entityName, storageKeys: doomed.map(\.key)) }
    }

    /// Throws the error ``fetchAll(_:)`` would for an entity that cannot be read as `E`: one saved
    /// under the same entity name by another type. (An entity of type `E` was copied in through
    /// `E`'s coders and always copies back.) A query checks them all, as the scan it stands for
    /// would, whether it selects them or not.
    private func requireReadable<E: Storable>(_ records: [Selected], as type: E.Type) throws {
        for record in records where !(record.snapshot is E) {
            _ = try copyOut(record.snapshot, as: E.self, key: record.key)
        }
    }

    /// The records `query` selects, filtered, sorted and paged.
    private func selected<E: Storable>(_ type: E.Type, by query: StorageQuery) throws -> [Selected] {
        let entityName = E.entityName
        let (selection, foreign) = try withState(entityName: entityName) { state in
            (state.tables[entityName]?.select(query), state.tables[entityName]?.snapshots(notOf: E.self) ?? [])
        }
        try requireReadable(foreign, as: E.self)
        return try selection?.records(E.self, query: query) ?? []
    }

    // MARK: - Copies

    /// A snapshot of `entity` and the values of its indexed fields.
    private func copyIn<E: Storable>(_ entity: E, layout: IndexLayout) throws -> (
        key: String, snapshot: any Storable, values: [StorageValue]
    ) {
        let key = entity.id.storageKey
        do {
            let snapshot = try copier.map(entity, to: E.self)
            let values = try layout.values(of: snapshot)
            return (key, snapshot, values)
        } catch {
            throw StorageError(.encodingFailed, entityName: E.entityName, key: key, underlyingError: error)
        }
    }

    private func copyOut<E: Storable>(_ snapshot: any Storable, as type: E.Type, key: String) throws -> E {
        try InMemoryTable.copy(snapshot, as: E.self, key: key, with: copier)
    }
}

extension InMemoryStorageContext: ExplainingStorageContext {
    /// How ``fetch(_:matching:)`` (or, when `counting`, ``count(_:matching:)``) would answer
    /// `query`: the declared index it walks, whether it counts the index's entries alone, or a
    /// scan. Builds the index first, as the query would.
    /// - Throws: only ``StorageError/Kind/reentrantCall``.
    public func explain<E: Storable>(_ query: StorageQuery, counting: Bool, for type: E.Type) throws -> StorageAccess {
        let entityName = E.entityName
        return try withState(entityName: entityName) { state in
            state.tables[entityName]?.explain(query, counting: counting)
        } ?? StorageAccess(scansEveryRecord: false)
    }
}
