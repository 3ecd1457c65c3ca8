import DAOKit

extension FileStorageContext {
    // MARK: Queries

    /// The entities `query` selects, answered from the decoded entities this context keeps (see
    /// ``QueryCache``): the first query of a type reads and decodes its records once; later ones
    /// check the change log under the shared lock, reread what other processes changed, and walk
    /// the type's indexes (see ``InMemoryStorageContext``). Only the entities returned are copied.
    /// With the cache disabled, or a type over its bound, every record is read and the query
    /// evaluated on them.
    /// - Throws: ``StorageError`` as ``fetchAll(_:)`` when a record the query needs cannot be read
    ///   (a record that does not decode keeps the type out of the cache, and the scan names it).
    ///   ``StorageError/Code/invalidQuery`` for a negative limit or offset, before reading.
    public func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) throws -> [E] {
        if let handleTransaction { return try handleTransaction.fetch(type, matching: query) }
        try query.validate(entityName: E.entityName)
        guard let selection = try cachedSelection(E.self, query) else {
            return try query.apply(to: try fetchAll(type))
        }
        let copier = EntityMapper()
        return try selection.records(E.self, query: query).map { selected in
            try InMemoryTable.copy(selected.snapshot, as: E.self, key: selected.key, with: copier)
        }
    }

    /// How many entities `filter` holds for, counted as ``fetch(_:matching:)`` selects them.
    /// - Throws: as ``fetch(_:matching:)``.
    public func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws -> Int {
        if let handleTransaction { return try handleTransaction.count(type, matching: filter) }
        guard let counted = try withCachedTable(E.self, { table in table.count(matching: filter) }) else {
            return try QueryEvaluator(StorageQuery(filter: filter)).count(in: try fetchAll(type))
        }
        return try counted.count(E.self, filter: filter)
    }

    /// Removes the entities `filter` holds for, in one all-or-nothing write of their ids. The
    /// selection is made before the write lock is taken: an entity another writer changes in
    /// between is removed or kept by the values it had when selected.
    /// - Throws: as ``fetch(_:matching:)`` and ``delete(_:ids:)``; nothing is removed then.
    public func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws {
        if let handleTransaction { return try handleTransaction.delete(type, matching: filter) }
        let query = StorageQuery(filter: filter)
        let keys: [String]
        if let selection = try cachedSelection(E.self, query) {
            keys = try selection.records(E.self, query: query).map(\.key)
        } else {
            keys = try query.apply(to: try fetchAll(type)).map(\.id.storageKey)
        }
        if keys.isEmpty { return }
        try delete(type, storageKeys: keys)
    }

    /// What the cache selects for `query` under the shared lock, or `nil` when the type is not
    /// cached and the caller must scan.
    private func cachedSelection<E: Storable>(_ type: E.Type, _ query: StorageQuery) throws -> InMemoryTable.Selection<
        [Selected]
    >? {
        try withCachedTable(E.self) { table in table.select(query) }
    }

    /// `body` run on the cached table of `E` under the shared lock, or `nil` when the type is not
    /// cached and the caller must scan.
    private func withCachedTable<E: Storable, T>(_ type: E.Type, _ body: (inout InMemoryTable) throws -> T) throws -> T?
    {
        guard queryCache.isEnabled else { return nil }
        let entityName = E.entityName
        return try mapErrors(entityName: entityName, key: nil) {
            try withReadLock(entityName: entityName) { pending -> T? in
                // The cache follows the files; while a batch waits to be rolled back, the
                // committed state is the journal's, which only a scan reads.
                guard pending == nil else { return nil }
                return try queryCache.withTable(E.self, in: self, body)
            }
        }
    }
}

extension FileStorageContext: ExplainingStorageContext {
    /// How ``fetch(_:matching:)`` (or, when `counting`, ``count(_:matching:)``) would answer
    /// `query`: through the query cache's indexes, as ``InMemoryStorageContext`` does, or by
    /// reading every record when the type is not cached. Loads the cache first, as a query would.
    /// - Throws: ``StorageError`` as ``fetchAll(_:)`` when the cache cannot be loaded.
    public func explain<E: Storable>(_ query: StorageQuery, counting: Bool, for type: E.Type) throws -> StorageAccess {
        if let handleTransaction { return try handleTransaction.explain(query, counting: counting, for: type) }
        return try withCachedTable(E.self) { table in table.explain(query, counting: counting) }
            ?? StorageAccess(scansEveryRecord: true)
    }
}
