/// The versions of an entity's stored records: the version this code writes and, for each version
/// after the first, what changed from the one before, so that records written by older versions
/// read as the current type.
///
/// An entity that declares nothing is at version 1 with no changes (``initial``), and its records
/// are written and read exactly as they were before versions existed. To change a stored entity,
/// raise the version and declare the step:
///
/// ```swift
/// static let schema = EntitySchema(
///     version: 3,
///     steps: [
///         2: [.added("points", default: 0)],
///         3: [.renamed("note", to: "remark")],
///     ])
/// ```
///
/// Contexts check the schema the first time they read or write the entity; a schema that cannot
/// be right (see ``StorageError/Code/invalidSchema``) fails that call, naming the field.
public struct EntitySchema: Sendable {
    /// The version of the records this code writes: 1 for the first release.
    public let version: Int
    /// The oldest version of the code that can read the records this version writes. Equal to
    /// ``version`` unless declared: code older than that refuses them
    /// (``StorageError/Code/newerVersion``).
    public let readableFrom: Int
    /// What changed at each version, keyed by the version the change arrived in (2 and up).
    public let steps: [Int: [EntityChange]]

    /// A schema at `version`, with the changes of each step since version 1.
    /// - Parameters:
    ///   - version: the version this code writes, at least 1.
    ///   - readableFrom: the oldest version of the code that reads what this one writes; by
    ///     default this version. Declare an older one only when that code reads these records
    ///     (`EntityShapeCheck`'s rollback check proves it in a test).
    ///   - steps: the changes of each version from 2 to `version`; a version without changes may be
    ///     left out.
    public init(version: Int, readableFrom: Int? = nil, steps: [Int: [EntityChange]] = [:]) {
        self.version = version
        self.readableFrom = readableFrom ?? version
        self.steps = steps
    }

    /// Version 1, no changes: the schema of every entity that declares none.
    public static let initial = EntitySchema(version: 1)

    /// Whether this is ``initial``: nothing to record or resolve.
    var isInitial: Bool { version == 1 && readableFrom == 1 && steps.isEmpty }
}

/// One change of an entity's stored fields at a version step (``EntitySchema/steps``).
///
/// Fields are named by their coding keys, which for synthesized `Codable` are the property names.
public struct EntityChange: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case added(field: String, value: any Sendable, valueType: String)
        case renamed(from: String, to: String)
        case removed(field: String)
        case widened(field: String)
        case migrated(MigrationStep)
    }

    /// The function of a migration step, as a value.
    struct MigrationStep: Sendable {
        let body: @Sendable (inout MigratingRecord) throws -> Void
    }

    let kind: Kind

    /// The field `field` was added: records of older versions lack it and read `value` instead.
    ///
    /// The entity must decode `field` as `Value` (or `Value?`); otherwise the first use of the
    /// entity fails with ``StorageError/Code/invalidSchema``.
    public static func added<Value: Sendable>(_ field: String, default value: Value) -> EntityChange {
        EntityChange(kind: .added(field: field, value: value, valueType: String(describing: Value.self)))
    }

    /// The field `oldName` is now `newName`: records of older versions hold it under `oldName`.
    public static func renamed(_ oldName: String, to newName: String) -> EntityChange {
        EntityChange(kind: .renamed(from: oldName, to: newName))
    }

    /// The field `field` is no longer read: older records that hold it are read without it, and a
    /// save over a record that holds it keeps it, for code of an older version that still reads it.
    public static func removed(_ field: String) -> EntityChange {
        EntityChange(kind: .removed(field: field))
    }

    /// The field `field` now holds a wider type: an integer became a wider integer or a
    /// floating-point number, `T` became `T?`, or an enum gained cases. Older records read as the
    /// wider type (an integer stored before the step reads as `Double` or `Float` when asked so).
    public static func widened(_ field: String) -> EntityChange {
        EntityChange(kind: .widened(field: field))
    }

    /// A change that lightweight declarations cannot say — a field that changes kind, splits in
    /// two or is derived from others: `migrate` rewrites each record of the version before the
    /// step into this version's fields (``MigratingRecord``), or throws to fail that record.
    ///
    /// A step that migrates declares nothing else. Records of older versions are read through
    /// every step in order, this one included, each time they are read, until
    /// ``BaseDao/migrate(progress:)-4r1a4`` rewrites them; so `migrate` must give the same result every
    /// time for the same record, and must not depend on anything but the record.
    public static func migrated(_ migrate: @escaping @Sendable (inout MigratingRecord) throws -> Void) -> EntityChange {
        EntityChange(kind: .migrated(MigrationStep(body: migrate)))
    }

    /// The change as it is declared, such as `renamed("note", to: "remark")`.
    public var description: String {
        switch kind {
        case .added(let field, let value, _): "added(\(field.debugDescription), default: \(value))"
        case .renamed(let from, let to): "renamed(\(from.debugDescription), to: \(to.debugDescription))"
        case .removed(let field): "removed(\(field.debugDescription))"
        case .widened(let field): "widened(\(field.debugDescription))"
        case .migrated: "migrated { … }"
        }
    }
}
