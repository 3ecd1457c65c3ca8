import DAOKit
import Foundation

/// A test that a change to an entity type does not make stored records unreadable: it records the
/// entity's stored shape, per version, in snapshot files the app commits, and reads every older
/// version's records with the current type.
///
/// Call it from a test of the app:
///
/// ```swift
/// @Test func taskRecordsStayReadable() throws {
///     let snapshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("EntityShapes")
///     try EntityShapeCheck(TaskEntity.self, version: 2, snapshots: snapshots).verify()
/// }
/// ```
///
/// ``verify()`` fails (throws ``EntityShapeCheckFailure``, listing every problem) when:
/// - no snapshot of `version` exists: it writes one (`tasks.v2.shape`) and fails once, asking you
///   to commit it; the next run passes;
/// - the snapshot of `version` records another shape: the shape changed but the version did not;
/// - a snapshot of a higher version exists;
/// - a record of an older version cannot be read by the current type, or needs a migration step;
///   records of each older version are synthesized from its snapshot (values of the old kinds,
///   every enum case, optional values present and missing) and decoded through the path the
///   JSON contexts read records with. The failure names the field and the fix: "`points` was
///   added without a default: declare one or make it optional";
/// - with ``EntityShapeRollback/previousVersion`` (the default), the previous version could not
///   read the records this one writes (a rollback, or an older app sharing the store): a removed
///   required field, a gained enum case, a widened kind.
///
/// What the shape cannot know (see ``EntityShape/init(of:)``): widths of integers, values a type
/// validates beyond its kind, keys a type enumerates itself. Declared defaults, renames and
/// migration steps are not part of DAOKit yet: until they are, the fix a failure names is the
/// change to make in the type (an optional, a `decodeIfPresent ?? default`), or, for a change
/// made on purpose, a new version whose older records the app migrates itself.
public struct EntityShapeCheck<Entity: Storable>: Sendable {
    /// The version of the entity's stored shape that the app declares: 1 for the first release,
    /// raised with every release that changes the shape.
    public let version: Int
    /// The folder the snapshot files are in.
    public let snapshots: URL
    /// Whether the previous version must read what this one writes.
    public let rollback: EntityShapeRollback

    /// A check of `entity` at `version` against the snapshots in the folder `snapshots`.
    public init(_ entity: Entity.Type, version: Int, snapshots: URL, rollback: EntityShapeRollback = .previousVersion) {
        self.version = version
        self.snapshots = snapshots
        self.rollback = rollback
    }

    /// The snapshot file of ``version``: `<entityName>.v<version>.shape` in ``snapshots``.
    public var snapshotURL: URL {
        ShapeSnapshotFile.url(in: snapshots, entityName: Entity.entityName, version: version)
    }

    /// Checks the current entity against every recorded version (see ``EntityShapeCheck``), and
    /// writes the snapshot of ``version`` when there is none.
    ///
    /// - Throws: ``EntityShapeCheckFailure`` listing every problem found; ``ShapeRecordingError``
    ///   when the entity's shape cannot be derived; ``ShapeSnapshotError`` when a snapshot file
    ///   cannot be read or written, or ``version`` is below 1.
    public func verify() throws {
        guard version >= 1 else {
            throw ShapeSnapshotError(
                file: snapshotURL.path, line: nil, reason: "versions count from 1; \(version) was given")
        }
        let current = try EntityShape(of: Entity.self)
        let recorded = try ShapeSnapshotFile.versions(in: snapshots, entityName: Entity.entityName)
        var problems: [EntityShapeProblem] = []

        let byVersion = recorded.sorted { $0.key < $1.key }
        for (newer, url) in byVersion where newer > version {
            problems.append(
                EntityShapeProblem(
                    kind: .newerSnapshot, field: nil, olderVersion: nil,
                    message: "a snapshot of version \(newer) exists (\(url.path)) but \(Entity.self) declares "
                        + "version \(version): a version never goes down; declare version \(newer) or more"))
        }
        if let url = recorded[version] {
            let snapshot = try ShapeSnapshotFile.read(url, version: version)
            if snapshot != current {
                let changes = ShapeChange.changes(from: snapshot.fields, to: current.fields).map(\.summary)
                problems.append(
                    EntityShapeProblem(
                        kind: .shapeChangedWithoutNewVersion, field: nil, olderVersion: nil,
                        message: "the stored shape of \(Entity.self) changed but its version did not: the snapshot of "
                            + "version \(version) (\(url.path)) records another shape (\(changes.joined(separator: "; "))). "
                            + "Declare version \(version + 1); if version \(version) was never released, record it again "
                            + "with record() instead"))
            }
        } else {
            let url = try ShapeSnapshotFile.write(
                current, entityName: Entity.entityName, version: version, in: snapshots)
            problems.append(
                EntityShapeProblem(
                    kind: .snapshotRecorded, field: nil, olderVersion: nil,
                    message: "recorded the stored shape of \(Entity.self) at version \(version) in \(url.path): commit "
                        + "this file; the next run checks against it"))
        }

        var previous: (version: Int, shape: EntityShape)?
        for (olderVersion, url) in byVersion where olderVersion < version {
            let shape = try ShapeSnapshotFile.read(url, version: olderVersion)
            problems += readingProblems(reading: shape, of: olderVersion, recordedIn: url, as: current)
            previous = (olderVersion, shape)
        }
        if rollback == .previousVersion, let previous {
            problems += rollbackProblems(reading: current, as: previous.shape, of: previous.version)
        }

        var seen: Set<String> = []
        problems = problems.filter { seen.insert("\($0.kind) \($0.field ?? "")").inserted }
        guard problems.isEmpty else {
            throw EntityShapeCheckFailure(entityName: Entity.entityName, version: version, problems: problems)
        }
    }

    /// Writes the current shape as the snapshot of ``version``, replacing the one there, and
    /// returns its file. Only for a version that was never released: a released version's
    /// snapshot is what its records hold.
    /// - Throws: ``ShapeRecordingError`` when the shape cannot be derived; ``ShapeSnapshotError``
    ///   when the file cannot be written.
    @discardableResult
    public func record() throws -> URL {
        try ShapeSnapshotFile.write(
            try EntityShape(of: Entity.self), entityName: Entity.entityName, version: version, in: snapshots)
    }

    /// What keeps records of `olderVersion` (recorded as `old`) from being read as `current`.
    private func readingProblems(
        reading old: EntityShape, of olderVersion: Int, recordedIn snapshot: URL, as current: EntityShape
    ) -> [EntityShapeProblem] {
        let failure = firstReadFailure(of: old, version: olderVersion, recordedIn: snapshot)
        let unreadable = failure != nil
        var problems: [EntityShapeProblem] = []
        func add(_ kind: EntityShapeProblem.Kind, _ field: String, _ message: String) {
            problems.append(EntityShapeProblem(kind: kind, field: field, olderVersion: olderVersion, message: message))
        }
        // A change that decoding proves harmful is reported only when a record of the old shape
        // failed to decode: a type may cope with it (a `try?` with a fallback, say). A change of
        // kind is reported in any case — a value of one kind that happens to decode as another
        // (a date's number as a floating-point number) still needs a migration step — unless
        // such records cross a declared migration step, and read.
        let migrated =
            !unreadable
            && ((try? EntityVersioning.of(Entity.self).plan(
                forStoredVersion: olderVersion, readableFrom: nil, key: "", location: ""))??.crossesMigrationStep
                ?? false)
        for change in ShapeChange.changes(from: old.fields, to: current.fields) {
            switch change.kind {
            case .added(let value) where !value.isOptional && unreadable:
                add(
                    .addedWithoutDefault, change.path,
                    "`\(change.path)` was added without a default: declare one or make it optional (records of version \(olderVersion) lack it)"
                )
            case .renamed(let from, _, let new) where !new.isOptional && unreadable:
                add(.renamed, change.path, Self.renameMessage(from: from, to: change.path))
            case .kindChanged(let oldKind, let newKind)
            where !ShapeChange.isWidening(from: oldKind, to: newKind) && !migrated:
                add(.kindChanged, change.path, Self.kindChangeMessage(change.path, oldKind, newKind))
            case .becameRequired where unreadable:
                add(
                    .becameRequired, change.path,
                    "`\(change.path)` became required, but records of version \(olderVersion) may lack it: declare a default or keep it optional"
                )
            case .enumCases(let lost, _) where !lost.isEmpty && unreadable:
                add(
                    .lostEnumCases, change.path,
                    "`\(change.path)` lost \(EnumCaseList(lost)): records of version \(olderVersion) holding it cannot be read; add a migration step"
                )
            default:
                break
            }
        }
        if let failure, problems.isEmpty {
            problems.append(
                EntityShapeProblem(
                    kind: .unreadableRecord, field: nil, olderVersion: olderVersion,
                    message:
                        "a record of version \(olderVersion) cannot be read by the current \(Entity.self): \(failure)"))
        }
        return problems
    }

    /// What keeps `previousVersion` (recorded as `previous`) from reading the records of `current`.
    private func rollbackProblems(reading current: EntityShape, as previous: EntityShape, of previousVersion: Int)
        -> [EntityShapeProblem]
    {
        let reader = "version \(previousVersion) (a rollback, or an older app on the same store)"
        var problems: [EntityShapeProblem] = []
        func add(_ kind: EntityShapeProblem.Kind, _ field: String, _ message: String) {
            problems.append(
                EntityShapeProblem(kind: kind, field: field, olderVersion: previousVersion, message: message))
        }
        for change in ShapeChange.changes(from: previous.fields, to: current.fields) {
            switch change.kind {
            case .removed(let value) where !value.isOptional:
                add(
                    .removedButStillRequired, change.path,
                    "`\(change.path)` was removed, but \(reader) requires it and cannot read the records this version "
                        + "writes: keep it, optional, until version \(previousVersion) is retired")
            case .renamed(let from, let old, _) where !old.isOptional:
                add(.renamed, change.path, Self.renameMessage(from: from, to: change.path))
            case .kindChanged(let oldKind, let newKind):
                if ShapeChange.isWidening(from: oldKind, to: newKind) {
                    add(
                        .widened, change.path,
                        "`\(change.path)` widened from \(ShapeText.text(of: oldKind)) to \(ShapeText.text(of: newKind)): "
                            + "\(reader) cannot read the values only the new kind holds")
                } else {
                    add(.kindChanged, change.path, Self.kindChangeMessage(change.path, oldKind, newKind))
                }
            case .becameOptional:
                add(
                    .becameOptional, change.path,
                    "`\(change.path)` became optional, but \(reader) requires it and cannot read records this version writes without it"
                )
            case .enumCases(_, let gained) where !gained.isEmpty:
                add(
                    .gainedEnumCases, change.path,
                    "`\(change.path)` gained \(EnumCaseList(gained)): \(reader) cannot read records holding it; if no "
                        + "older version reads this store, check with rollback: .notChecked")
            default:
                break
            }
        }
        return problems
    }

    private static func renameMessage(from: String, to: String) -> String {
        "`\(from)` disappeared while `\(to)` of the same kind appeared: declare the rename or a migration step"
    }

    private static func kindChangeMessage(_ path: String, _ old: EntityShape.Kind, _ new: EntityShape.Kind) -> String {
        "`\(path)` changed from \(ShapeText.text(of: old)) to \(ShapeText.text(of: new)): add a migration step"
    }

    /// The first error decoding a synthesized record of `shape` (recorded at `version`) as `Entity`
    /// throws, through the JSON contexts' record decoding (the key-value context's; PostgreSQL's
    /// `JSONRecord` shares it) — resolved by the steps the entity's ``Storable/schema`` declares
    /// from that version, as the contexts read such a record.
    private func firstReadFailure(of shape: EntityShape, version: Int, recordedIn snapshot: URL) -> (any Error)? {
        let decoder = JSONDecoder()
        let plan: ResolutionPlan?
        do {
            plan = try EntityVersioning.of(Entity.self).plan(
                forStoredVersion: version, readableFrom: nil, key: "synthesized record", location: snapshot.path)
        } catch {
            // A schema that cannot be right is the first problem; a snapshot newer than the
            // schema's version is read as it is (the version check reports it).
            if error.code == .invalidSchema { return error }
            plan = nil
        }
        for record in RecordSynthesis.records(of: shape.fields) {
            do {
                _ = try JSONRecordDecoding.decode(
                    Entity.self, from: Data(record.utf8), key: "synthesized record", location: snapshot.path,
                    decoder: decoder, plan: plan)
            } catch {
                return error
            }
        }
        return nil
    }
}

/// Whether ``EntityShapeCheck`` also checks that the previous version reads what the current one
/// writes.
public enum EntityShapeRollback: Sendable, Equatable {
    /// The highest recorded version below the current one must read records the current one writes:
    /// a removed required field, a field that became optional, a gained enum case or a widened kind
    /// fails. For a server that may be rolled back, or apps whose older installs share a store.
    case previousVersion
    /// Only the current version reads older records; for an app whose store no older version
    /// reads again.
    case notChecked
}

/// The error ``EntityShapeCheck/verify()`` throws: every problem found, one per line.
public struct EntityShapeCheckFailure: Error, CustomStringConvertible, Sendable {
    /// The entity's ``Storable/entityName``.
    public let entityName: String
    /// The version checked.
    public let version: Int
    /// Every problem, in the order found.
    public let problems: [EntityShapeProblem]

    /// A summary line, then one line per problem.
    public var description: String {
        let noun = problems.count == 1 ? "problem" : "problems"
        return
            (["\(entityName) version \(version): \(problems.count) stored-shape \(noun):"] + problems.map { "- \($0)" })
            .joined(separator: "\n")
    }
}

/// One problem ``EntityShapeCheck`` found.
public struct EntityShapeProblem: CustomStringConvertible, Sendable, Equatable {
    /// What kind of problem.
    public enum Kind: Sendable, Equatable {
        /// No snapshot of the version existed; one was written, to commit.
        case snapshotRecorded
        /// The version's snapshot records another shape: the version must be raised.
        case shapeChangedWithoutNewVersion
        /// A snapshot of a higher version than the declared one exists.
        case newerSnapshot
        /// A required field older records lack.
        case addedWithoutDefault
        /// A field gone while one of the same kind appeared: a rename.
        case renamed
        /// A field's kind changed beyond a widening.
        case kindChanged
        /// An optional field became required.
        case becameRequired
        /// An enum lost cases that older records may hold.
        case lostEnumCases
        /// An older record cannot be read, for a reason the shapes do not show (a type's own
        /// validation, say); the message has the decoding error.
        case unreadableRecord
        /// Rollback: a field the previous version requires was removed.
        case removedButStillRequired
        /// Rollback: a field the previous version requires became optional.
        case becameOptional
        /// Rollback: an enum gained cases the previous version cannot read.
        case gainedEnumCases
        /// Rollback: a kind widened (an integer to a floating-point number) beyond what the previous version reads.
        case widened
    }

    /// What kind of problem.
    public let kind: Kind
    /// The field's path (`points`, `owner.name`, `items[].id`), when one field is at fault.
    public let field: String?
    /// The older version whose records (or whose reading, for a rollback) fail, when one does.
    public let olderVersion: Int?
    /// What is wrong and how to fix it.
    public let message: String

    /// The message.
    public var description: String { message }
}
