/// The read-modify-write of ``BaseDao/update(id:attempts:_:)``, on the context opened as its own
/// transactional type.
extension BaseDao {
    func updateInPlace<C: TransactionalStorageContext>(
        id: Domain.ID, on context: C, attempts: Int, _ change: (inout Domain) throws -> Void
    ) throws -> Domain? {
        var attempt = 1
        while true {
            do {
                return try context.transaction { handle in try updateStep(id: id, on: handle, change) }
            } catch let error as StorageError where error.code == .transactionConflict && attempt < attempts {
                // Another writer committed first: run the step again on what it committed.
                attempt += 1
            }
        }
    }

    /// The same, on a context that runs a conflicting transaction again by a strategy of its own.
    func updateInPlace<C: RetryingTransactionalStorageContext>(
        id: Domain.ID, retryingOn context: C, attempts: Int, _ change: (inout Domain) throws -> Void
    ) throws -> Domain? {
        try context.transaction(retrying: attempts) { handle in try updateStep(id: id, on: handle, change) }
    }

    /// One run of the read-modify-write, through `handle`.
    private func updateStep<C: TransactionalStorageContext>(
        id: Domain.ID, on handle: C, _ change: (inout Domain) throws -> Void
    ) throws -> Domain? {
        guard let entity = try handle.fetch(Entity.self, id: id) else { return nil }
        var value = try mapper.map(entity, to: Domain.self)
        try change(&value)
        guard value.id == id else {
            throw StorageError(
                .unsupported("update(id:) cannot change the id (\(id) became \(value.id)): erase and create instead"),
                entityName: Entity.entityName, key: id.storageKey)
        }
        try handle.save([try toEntity(value)], mode: .update)
        return value
    }
}
