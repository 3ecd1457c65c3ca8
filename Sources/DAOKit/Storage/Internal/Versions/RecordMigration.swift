/// Reads a record older than a migration step: the record as a tree (``RecordTree``), every
/// step from its version to the current one applied to it in order — the declared changes as
/// edits of its fields, a migration step as its function over a ``MigratingRecord`` — and the
/// entity decoded from what results.
enum RecordMigration {
    /// The entity `E` that the record `tree`, of the plan's version and stored under `key`,
    /// becomes through the plan's steps.
    /// - Throws: ``MigrationFailure`` when a step fails the record, or the error decoding the
    ///   result as `E` throws.
    static func entity<E: Decodable>(
        _ type: E.Type, from tree: RecordTree, plan: ResolutionPlan, key: String
    ) throws -> E {
        guard let steps = plan.steps else { return try tree.decode(E.self) }
        guard case .object(var fields) = tree else {
            throw MigrationFailure(
                entityName: plan.entityName, key: key, step: plan.storedVersion + 1, field: nil,
                reason: "the record is not an object of fields", underlyingError: nil)
        }
        for (version, changes) in steps {
            for change in changes {
                switch change.kind {
                case .renamed(let from, let to):
                    guard fields.contains(where: { $0.name == from }) else { continue }
                    fields.removeAll { $0.name == to }
                    if let position = fields.firstIndex(where: { $0.name == from }) { fields[position].name = to }
                case .added(let field, let value, _):
                    guard !fields.contains(where: { $0.name == field && $0.value != .null }) else { continue }
                    fields.removeAll { $0.name == field }
                    fields.append((field, try defaultTree(value, field: field, version: version, plan: plan, key: key)))
                case .removed, .widened:
                    // The entity does not read a removed field; a widened one reads as it is.
                    break
                case .migrated(let step):
                    var record = MigratingRecord(
                        entityName: plan.entityName, key: key, version: version - 1, fields: fields)
                    try step.body(&record)
                    fields = record.fields
                }
            }
        }
        return try RecordTree.object(fields).decode(E.self)
    }

    /// The tree of an added field's default.
    private static func defaultTree(
        _ value: any Sendable, field: String, version: Int, plan: ResolutionPlan, key: String
    ) throws -> RecordTree {
        guard let encodable = value as? any Encodable else {
            throw MigrationFailure(
                entityName: plan.entityName, key: key, step: version, field: field,
                reason: "the default of `\(field)` is not Encodable", underlyingError: nil)
        }
        return try RecordTree.of(encodable)
    }
}
