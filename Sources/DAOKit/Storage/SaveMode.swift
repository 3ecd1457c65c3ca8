/// How ``StorageContext/save(_:mode:)`` treats ids that are, or are not, already stored.
public enum SaveMode: Sendable, Equatable, CaseIterable {
    /// Insert new ids and replace stored ones; never fails because of an id. What
    /// ``StorageContext/save(_:)`` does.
    case upsert
    /// Insert only: fails with ``StorageError/Kind/duplicateID`` when an id is already stored or
    /// appears twice in the batch. What ``BaseDao/create(_:)-83k4d`` does.
    case insert
    /// Replace only: fails with ``StorageError/Kind/missingID`` when an id is not stored.
    /// What ``BaseDao/update(_:)-64hmr`` does.
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
        let ids = entities.map(\.id)
        try SaveModeCheck.validate(keys: ids.map(\.storageKey), entityName: E.entityName, mode: mode) { position in
            try fetch(E.self, id: ids[position]) != nil
        }
        try save(entities)
    }
}

/// The id checks of ``SaveMode``, shared by every context so that they fail the same way.
///
/// It works on storage keys worked out beforehand, and never touches the entities: contexts run
/// it while holding their lock, where no user code may run (an `id` getter, a ``StorageKey``
/// conformance or an `ID`'s `Hashable` could call the context again).
package enum SaveModeCheck {
    /// Throws the error `mode` calls for.
    /// - Parameters:
    ///   - keys: the storage keys of the entities to save, in order.
    ///   - isStored: whether the entity at a position of `keys` is stored.
    package static func validate(
        keys: [String],
        entityName: String,
        mode: SaveMode,
        isStored: (_ position: Int) throws -> Bool
    ) throws {
        switch mode {
        case .upsert:
            return
        case .insert:
            var seen = Set<String>(minimumCapacity: keys.count)
            for (position, key) in keys.enumerated() {
                let repeated = !seen.insert(key).inserted
                if try repeated || isStored(position) {
                    throw StorageError(.duplicateID, entityName: entityName, key: key)
                }
            }
        case .update:
            for (position, key) in keys.enumerated() {
                if try !isStored(position) { throw StorageError(.missingID, entityName: entityName, key: key) }
            }
        }
    }
}
