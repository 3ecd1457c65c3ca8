import DAOKitInternals

/// An entity's ``EntitySchema``, checked, with what a context needs to stamp the records it writes
/// and to read the ones it finds: shared by every context that keeps encoded records, so that a
/// version means the same in each. `package`, because the file store and SQLite use it.
package struct EntityVersioning: Sendable {
    /// The entity type, whose name errors give (asked only then: naming costs a lock).
    private let entity: EntityType
    /// The entity's ``Storable/entityName``, for errors.
    package var entityName: String { entity.type.entityName }

    /// Sound as `Sendable`: a metatype is an immutable value (the compiler does not yet know that
    /// of an existential one).
    private struct EntityType: @unchecked Sendable {
        let type: any Storable.Type
    }
    /// The version records are written with.
    package let version: Int
    /// The oldest version that reads what this code writes; stamped beside the version when older.
    package let readableFrom: Int
    /// The plan that resolves a record of each older version (1 up to `version - 1`).
    private let plans: [ResolutionPlan]
    /// The fields a step declares removed (``EntityChange/removed(_:)``), and no later step
    /// brings back: a save of a record that holds one keeps it, so that code of an older
    /// version — a rollback, an older instance on the same store — still finds it (Protocol
    /// Buffers' rule for unknown fields); `migrate()` keeps it too. A later migration step ends
    /// it: the record then holds what the step wrote.
    package let keptFields: Set<String>
    /// Whether any older record holds a field other than as the current entity reads it (see
    /// ``fieldsChanged(inRecordsFrom:)``): whether a query must ask how old the stored records
    /// are. Found once, with the plans: every SQL query of the entity asks.
    package let changesFields: Bool

    /// Whether the entity declared nothing: records carry no version and read as they are.
    package var isInitial: Bool { version == 1 && readableFrom == 1 }

    /// The entity's versioning, checked the first time it is asked for and remembered.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/invalidSchema(_:)`` naming the field.
    package static func of<E: Storable>(_ type: E.Type) throws(StorageError) -> EntityVersioning {
        let schema = E.schema
        if schema.isInitial { return EntityVersioning(initial: E.self) }
        let id = ObjectIdentifier(E.self)
        if let known = cache.withLock({ $0[id] }) { return try known.get() }
        let checked = Result { () throws(StorageError) in try EntityVersioning(schema, of: E.self) }
        cache.withLock { $0[id] = checked }
        return try checked.get()
    }

    /// Checked schemas by entity type. Sound as `Sendable`: the values are, and the dictionary
    /// never leaves the lock.
    private static let cache = Locked<[ObjectIdentifier: Result<EntityVersioning, StorageError>]>([:])

    private init(initial entity: any Storable.Type) {
        self.entity = EntityType(type: entity)
        version = 1
        readableFrom = 1
        plans = []
        keptFields = []
        changesFields = false
    }

    private init<E: Storable>(_ schema: EntitySchema, of type: E.Type) throws(StorageError) {
        entity = EntityType(type: E.self)
        func invalid(_ detail: String) -> StorageError {
            StorageError(.invalidSchema(detail), entityName: E.entityName)
        }
        guard schema.version >= 1 else { throw invalid("version \(schema.version) is not a version; the first is 1") }
        guard (1...schema.version).contains(schema.readableFrom) else {
            throw invalid("readableFrom \(schema.readableFrom) is not between 1 and the version, \(schema.version)")
        }
        for (step, changes) in schema.steps {
            guard step >= 2, step <= schema.version else {
                throw invalid(
                    "a step declares version \(step), but the versions with changes are 2 to \(schema.version)")
            }
            var changed: Set<String> = []
            let migrates = changes.contains { if case .migrated = $0.kind { true } else { false } }
            if migrates && changes.count > 1 {
                throw invalid(
                    "version \(step) has a migration step beside other changes; a migration step declares nothing else")
            }
            for change in changes {
                let name: String
                switch change.kind {
                case .added(let field, _, _), .removed(let field): name = field
                case .widened, .migrated: continue
                case .renamed(let from, let to):
                    guard from != to, !from.isEmpty else {
                        throw invalid("`\(to)`: version \(step) renames it to itself or from an empty name")
                    }
                    name = to
                }
                guard !name.isEmpty else { throw invalid("version \(step) changes a field with an empty name") }
                guard changed.insert(name).inserted else {
                    throw invalid("`\(name)` is changed twice in version \(step); declare one change per field")
                }
            }
        }
        var kept: Set<String> = []
        for step in (1...schema.version).dropFirst() {
            for change in schema.steps[step] ?? [] {
                switch change.kind {
                case .removed(let field): kept.insert(field)
                case .added(let field, _, _), .renamed(_, let field): kept.remove(field)
                case .migrated: kept.removeAll()  // what a migration step leaves is what the record holds
                case .widened: break
                }
            }
        }
        keptFields = kept
        version = schema.version
        readableFrom = schema.readableFrom
        plans = (1..<schema.version).map { ResolutionPlan(schema, from: $0, entityName: E.entityName) }
        changesFields = Self.fieldsChanged(in: plans[...]).map { !$0.isEmpty } ?? true
        // Defaults of the steps before a migration step are read by it, as JSON, not by the entity.
        try FieldTypeCheck.check(E.self, plans: plans.filter { $0.steps == nil }, schema: schema)
    }

    /// How to read a record stamped `storedVersion` (1 when it carries none), which declares it is
    /// readable from `storedReadableFrom` (its version when it declares nothing): `nil` to decode
    /// it as it is, or the plan that resolves it.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/newerVersion(_:)`` when the record is
    ///   newer than this code and not declared readable by it.
    package func plan(
        forStoredVersion storedVersion: Int, readableFrom storedReadableFrom: Int?, key: @autoclosure () -> String?,
        location: @autoclosure () -> String?
    ) throws(StorageError) -> ResolutionPlan? {
        if storedVersion == version { return nil }
        if storedVersion > version {
            if let storedReadableFrom, storedReadableFrom <= version { return nil }
            throw StorageError(
                .newerVersion("written by version \(storedVersion); this build reads up to \(version)"),
                entityName: entityName, key: key(), location: location())
        }
        guard storedVersion >= 1 else {
            throw StorageError(
                .corruptRecord("entity version \(storedVersion) is not a version"), entityName: entityName,
                key: key(), location: location())
        }
        return plans[storedVersion - 1]
    }

    /// The current names of the top-level fields that records of a version from `oldest` up to
    /// the current one may not hold as the current entity reads them: added (such a record lacks
    /// them and reads a default) or renamed (it holds them under an older name). A context that
    /// filters or sorts stored fields without decoding them (SQL) must not do so on these while it
    /// holds such records. A widened field is not among them: the stored value is the same number,
    /// or the same case, only read as a wider type. `nil` means every field: such records cross
    /// a migration step, which may rewrite any field.
    package func fieldsChanged(inRecordsFrom oldest: Int) -> Set<String>? {
        guard oldest < version else { return [] }
        return Self.fieldsChanged(in: plans[max(oldest, 1) - 1..<plans.count])
    }

    /// What ``fieldsChanged(inRecordsFrom:)`` says of records of the versions `plans` read.
    private static func fieldsChanged(in plans: ArraySlice<ResolutionPlan>) -> Set<String>? {
        var changed: Set<String> = []
        for plan in plans {
            if plan.crossesMigrationStep { return nil }
            for (name, field) in plan.fields {
                switch field {
                case .defaulted: changed.insert(name)
                case .stored(let stored, _) where stored != name: changed.insert(name)
                case .stored: break
                }
            }
        }
        return changed
    }

    /// Checks that a save may replace a record stamped `storedVersion`.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/newerVersion(_:)`` when that record is
    ///   newer than this code: replacing it would lose what this code does not know.
    package func checkReplacing(storedVersion: Int, key: String, location: String?) throws(StorageError) {
        guard storedVersion > version else { return }
        throw replacementRefused(storedVersion: storedVersion, key: key, location: location)
    }

    /// The error of a save that would replace a record written by `storedVersion`, newer than
    /// this code (``checkReplacing(storedVersion:key:location:)``).
    package func replacementRefused(storedVersion: Int, key: String, location: String?) -> StorageError {
        StorageError(
            .newerVersion(
                "written by version \(storedVersion); this build writes version \(version) and does not replace it"),
            entityName: entityName, key: key, location: location)
    }
}
