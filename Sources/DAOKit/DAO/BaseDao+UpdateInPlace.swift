import Foundation

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

    /// ``update(_:ifUnchangedFrom:)``'s transaction: the stored entity against `expected`'s, then
    /// the write.
    func compareAndUpdate<C: TransactionalStorageContext>(_ domain: Domain, expected: Domain, on context: C) throws {
        let key = domain.id.storageKey
        guard expected.id == domain.id else {
            throw StorageError(
                .unsupported(
                    "update(_:ifUnchangedFrom:) compares a value with the same id (\(domain.id) against \(expected.id))"
                ),
                entityName: Entity.entityName, key: key)
        }
        let entity = try toEntity(domain)
        let expectedEntity = try toEntity(expected)
        try context.transaction { handle in
            guard let stored = try handle.fetch(Entity.self, id: entity.id) else {
                throw StorageError(.missingID, entityName: Entity.entityName, key: key)
            }
            guard try Self.comparableEncoding(of: stored) == Self.comparableEncoding(of: expectedEntity) else {
                throw StorageError(
                    .transactionConflict("the value stored under \(key) changed since it was read"),
                    entityName: Entity.entityName, key: key)
            }
            try handle.save([entity], mode: .update)
        }
    }

    /// An entity's JSON with sorted keys, NaN and the infinities as text: equal for two entities
    /// whose every field encodes the same.
    private static func comparableEncoding(of entity: Entity) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        do {
            return try encoder.encode(entity)
        } catch {
            throw StorageError(
                .encodingFailed, entityName: Entity.entityName, key: entity.id.storageKey, underlyingError: error)
        }
    }
}
