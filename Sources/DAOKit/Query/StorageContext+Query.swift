/// The query requirements' default implementations: correct for any context, by reading every
/// entity with ``StorageContext/fetchAll(_:)`` and evaluating the query in Swift. Entities are
/// never mapped to domain values here, so a record that does not match costs a decode and a
/// field read, not a mapping. Contexts that can do better (an index, SQL) implement the
/// requirements themselves; the ones shipped with DAOKit do.
extension StorageContext {
    /// Reads every entity and evaluates `query` on them with ``StorageQuery/apply(to:)``.
    /// - Throws: ``StorageError/Code/invalidQuery`` for a negative limit or offset, before reading.
    public func fetch<E: Storable>(_ type: E.Type, matching query: StorageQuery) throws -> [E] {
        try query.validate(entityName: E.entityName)
        return try query.apply(to: try fetchAll(type))
    }

    /// Reads every entity and counts those `filter` holds for.
    public func count<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws -> Int {
        try QueryEvaluator(StorageQuery(filter: filter)).count(in: try fetchAll(type))
    }

    /// Reads every entity, then deletes the ones `filter` holds for with
    /// ``StorageContext/delete(_:ids:)``. Not atomic: an entity changed by another writer between
    /// the read and the delete is deleted by its old values.
    public func delete<E: Storable>(_ type: E.Type, matching filter: StorageFilter) throws {
        let doomed = try fetch(type, matching: StorageQuery(filter: filter)).map(\.id)
        if doomed.isEmpty { return }
        try delete(type, ids: doomed)
    }
}
