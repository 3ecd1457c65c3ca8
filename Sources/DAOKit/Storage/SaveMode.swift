/// How ``StorageContext/save(_:mode:)`` treats ids that are, or are not, already stored.
public enum SaveMode: Sendable, Equatable, CaseIterable {
    /// Insert new ids and replace stored ones; never fails because of an id. What
    /// ``StorageContext/save(_:)`` does.
    case upsert
    /// Insert only: fails with ``StorageError/Kind/duplicateID`` when an id is already stored or
    /// appears twice in the batch. What ``BaseDao/create(_:)`` does.
    case insert
    /// Replace only: fails with ``StorageError/Kind/missingID`` when an id is not stored.
    /// What ``BaseDao/update(_:)`` does.
    case update
}

extension StorageContext {
    /// The portable fallback for contexts that do not implement the requirement: check every id
    /// with ``StorageContext/fetch(_:id:)``, then ``StorageContext/save(_:)``.
    ///
    /// It is all or nothing (the check happens before anything is written), but not atomic:
    /// a concurrent writer can insert or delete an id between the check and the write.
    /// - Throws: see ``StorageContext/save(_:mode:)``.
    public func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        try SaveModeCheck.validate(entities, mode: mode) { id in try fetch(E.self, id: id) != nil }
        try save(entities)
    }
}

/// The id checks of ``SaveMode``, shared by every context so that they fail the same way.
enum SaveModeCheck {
    /// Throws the error `mode` calls for, given a way to ask whether an id is stored.
    static func validate<E: Storable>(
        _ entities: [E],
        mode: SaveMode,
        isStored: (E.ID) throws -> Bool
    ) throws {
        switch mode {
        case .upsert:
            return
        case .insert:
            var seen = Set<E.ID>(minimumCapacity: entities.count)
            for entity in entities {
                let repeated = !seen.insert(entity.id).inserted
                if try repeated || isStored(entity.id) {
                    throw StorageError(.duplicateID, entityName: E.entityName, key: entity.id.storageKey)
                }
            }
        case .update:
            for entity in entities {
                if try !isStored(entity.id) {
                    throw StorageError(.missingID, entityName: E.entityName, key: entity.id.storageKey)
                }
            }
        }
    }
}
