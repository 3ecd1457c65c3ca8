/// How the fields of a record written at one older version read as the current entity's: the
/// composition of the declared steps from that version to the current one.
package final class ResolutionPlan: Sendable {
    /// What one of the current entity's fields reads in such a record.
    enum Field: Sendable {
        /// Stored under `name`; `widened` when a later step widened it.
        case stored(name: String, widened: Bool)
        /// Absent from such records: reads the declared default.
        case defaulted(value: any Sendable, valueType: String)
    }

    package let entityName: String
    /// The record's version.
    let storedVersion: Int
    /// The fields that do not read as themselves, by current name.
    let fields: [String: Field]
    /// Stored name to current name, for the renamed fields (for `allKeys`).
    let currentNames: [String: String]
    /// The ``Field/defaulted(value:valueType:)`` fields, as a list (``declaredDefault(of:)``).
    let defaults: [DeclaredDefault]
    /// For a record older than a migration step: every step from its version to the current one,
    /// in order, applied to the record as a tree (``RecordMigration``) instead of through the
    /// fields above; `nil` otherwise.
    let steps: [(version: Int, changes: [EntityChange])]?

    /// Whether the plan crosses a migration step, so that the record is read whole (``steps``).
    package var crossesMigrationStep: Bool { steps != nil }

    init(_ schema: EntitySchema, from storedVersion: Int, entityName: String) {
        self.entityName = entityName
        self.storedVersion = storedVersion
        let later = (storedVersion + 1...schema.version).map { ($0, schema.steps[$0] ?? []) }
        if later.contains(where: { $0.1.contains { if case .migrated = $0.kind { true } else { false } } }) {
            steps = later
            fields = [:]
            currentNames = [:]
            defaults = []
            return
        }
        steps = nil
        var fields: [String: Field] = [:]
        // Walk back from the current version: `byName` maps a field's name at the version reached
        // to its current name, for fields whose name changed; `resolved` holds current names that
        // no longer read as themselves at the version reached.
        var byName: [String: String] = [:]
        var resolved: Set<String> = []
        var widened: Set<String> = []
        func current(of name: String) -> String? {
            if let current = byName[name] { return current }
            return resolved.contains(name) ? nil : name
        }
        for step in stride(from: schema.version, to: storedVersion, by: -1) {
            for change in schema.steps[step] ?? [] {
                switch change.kind {
                case .renamed(let from, let to):
                    guard let field = current(of: to) else { continue }
                    byName[to] = nil
                    byName[from] = field
                    resolved.insert(field)
                    fields[field] = .stored(name: from, widened: false)
                case .added(let name, let value, let valueType):
                    guard let field = current(of: name) else { continue }
                    byName[name] = nil
                    resolved.insert(field)
                    fields[field] = .defaulted(value: value, valueType: valueType)
                case .widened(let name):
                    if let field = current(of: name) { widened.insert(field) }
                case .removed, .migrated:
                    break
                }
            }
        }
        for field in widened {
            switch fields[field] {
            case .stored(let name, _): fields[field] = .stored(name: name, widened: true)
            case nil: fields[field] = .stored(name: field, widened: true)
            case .defaulted: break
            }
        }
        self.fields = fields
        self.currentNames = byName
        defaults = fields.compactMap { name, field in
            guard case .defaulted(let value, let valueType) = field else { return nil }
            return DeclaredDefault(name: name, value: value, valueType: valueType)
        }
    }
}

/// What a context's own decoder needs to resolve a record of the plan's version itself, without
/// the layer of ``ResolvedDecoding`` (SQLite's row decoder, whose lookups by name that layer would
/// double): the name each stored field answers to, and the declared defaults. For a plan that
/// does not cross a migration step.
extension ResolutionPlan {
    /// The names the fields `storedNames` of such a record answer to, in order: a renamed field's
    /// current name; a name no entity field has (it starts with NUL) for a field whose name a
    /// current field now has but that does not hold that field (its predecessor of the same name,
    /// or a field since renamed away or added back with a default); else the stored name.
    package func currentNames(ofStored storedNames: [String]) -> [String] {
        storedNames.map { stored in
            if let current = currentNames[stored] { return current }
            switch fields[stored] {
            case .stored(let name, _) where name != stored: return "\u{0}" + stored
            case .defaulted: return "\u{0}" + stored
            default: return stored
            }
        }
    }

    /// The current fields that such records lack and that read their declared default.
    package var defaultedFields: [String] { defaults.map(\.name) }

    /// A field's declared default.
    package struct DeclaredDefault: Sendable {
        /// The field's current name.
        package let name: String
        /// The default.
        package let value: any Sendable
        /// The name of the default's type, for errors.
        package let valueType: String
    }

    /// The declared default of the current field `name`; `nil` when the field has none (it is
    /// stored in such records). A search of a list (of one or two fields, typically): cheaper
    /// than hashing the name.
    @inline(__always)
    package func declaredDefault(of name: String) -> DeclaredDefault? {
        for field in defaults where field.name == name { return field }
        return nil
    }

    /// Whether the declared default of the current field `name` is `nil`; `nil` when the field
    /// has no default.
    package func defaultIsNil(_ name: String) -> Bool? {
        declaredDefault(of: name).map { isNil($0.value) }
    }
}
