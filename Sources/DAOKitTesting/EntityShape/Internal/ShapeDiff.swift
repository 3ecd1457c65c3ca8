/// One difference between an older recorded shape and the current one.
struct ShapeChange: Equatable {
    enum Kind: Equatable {
        /// A field the older shape lacks.
        case added(EntityShape.Value)
        /// A field the current shape lacks.
        case removed(EntityShape.Value)
        /// A field gone while another of the same kind appeared in the same keyed value.
        case renamed(from: String, old: EntityShape.Value, new: EntityShape.Value)
        /// Another kind (optionality aside).
        case kindChanged(old: EntityShape.Kind, new: EntityShape.Kind)
        /// Optional before, required now.
        case becameRequired
        /// Required before, optional now.
        case becameOptional
        /// The raw values an enum lost and gained.
        case enumCases(lost: [String], gained: [String])
    }

    /// The field's path in the current shape (for a rename, the new name).
    let path: String
    let kind: Kind

    /// Whether a kind change is one of the widenings a record of the old kind reads as without a
    /// migration step: an integer to a floating-point number or a decimal, an enum to its raw kind.
    static func isWidening(from old: EntityShape.Kind, to new: EntityShape.Kind) -> Bool {
        switch (old, new) {
        case (.integer, .floating), (.integer, .decimal): true
        case (.enumeration(_, false), .string), (.enumeration(_, true), .integer): true
        default: false
        }
    }

    /// The differences from `old` to `new`, outermost first: inside a field that was added,
    /// removed or changed kind, nothing more is listed.
    static func changes(from old: [EntityShape.Field], to new: [EntityShape.Field]) -> [ShapeChange] {
        var changes: [ShapeChange] = []
        compare(old, new, prefix: [], into: &changes)
        return changes
    }

    private static func compare(
        _ old: [EntityShape.Field], _ new: [EntityShape.Field], prefix: [ShapePathComponent],
        into changes: inout [ShapeChange]
    ) {
        let oldNames = Set(old.map(\.name))
        var added = new.filter { !oldNames.contains($0.name) }
        for field in old {
            let path = prefix + [.key(field.name)]
            guard let current = new.first(where: { $0.name == field.name }) else {
                // Gone: a rename when a field of the same kind appeared next to it.
                if let index = added.firstIndex(where: { $0.value.kind == field.value.kind }) {
                    let renamed = added.remove(at: index)
                    changes.append(
                        ShapeChange(
                            path: ShapeText.path(prefix + [.key(renamed.name)]),
                            kind: .renamed(from: ShapeText.path(path), old: field.value, new: renamed.value)))
                } else {
                    changes.append(ShapeChange(path: ShapeText.path(path), kind: .removed(field.value)))
                }
                continue
            }
            compare(field.value, current.value, path: path, into: &changes)
        }
        for field in added {
            changes.append(ShapeChange(path: ShapeText.path(prefix + [.key(field.name)]), kind: .added(field.value)))
        }
    }

    private static func compare(
        _ old: EntityShape.Value, _ new: EntityShape.Value, path: [ShapePathComponent],
        into changes: inout [ShapeChange]
    ) {
        let text = ShapeText.path(path)
        if old.isOptional && !new.isOptional { changes.append(ShapeChange(path: text, kind: .becameRequired)) }
        if !old.isOptional && new.isOptional { changes.append(ShapeChange(path: text, kind: .becameOptional)) }
        switch (old.kind, new.kind) {
        case (.keyed(let oldFields), .keyed(let newFields)):
            compare(oldFields, newFields, prefix: path, into: &changes)
        case (.array(let oldElement), .array(let newElement)):
            compare(oldElement, newElement, path: path + [.element], into: &changes)
        case (.dictionary(let oldIntegers, let oldElement), .dictionary(let newIntegers, let newElement))
        where oldIntegers == newIntegers:
            compare(oldElement, newElement, path: path + [.element], into: &changes)
        case (.enumeration(let oldCases, let oldIntegers), .enumeration(let newCases, let newIntegers))
        where oldIntegers == newIntegers:
            let lost = oldCases.filter { !newCases.contains($0) }
            let gained = newCases.filter { !oldCases.contains($0) }
            if !lost.isEmpty || !gained.isEmpty {
                changes.append(ShapeChange(path: text, kind: .enumCases(lost: lost, gained: gained)))
            }
        case (.recursive(let oldName), .recursive(let newName)) where oldName == newName:
            break
        case (let oldKind, let newKind):
            if !sameLeaf(oldKind, newKind) {
                changes.append(ShapeChange(path: text, kind: .kindChanged(old: oldKind, new: newKind)))
            }
        }
    }

    private static func sameLeaf(_ old: EntityShape.Kind, _ new: EntityShape.Kind) -> Bool {
        switch (old, new) {
        case (.keyed, _), (.array, _), (.dictionary, _), (.enumeration, _), (.recursive, _): false
        default: old == new
        }
    }

    /// A neutral description, for the list of what changed within one version.
    var summary: String {
        switch kind {
        case .added(let value): "`\(path)` added (\(value))"
        case .removed(let value): "`\(path)` removed (was \(value))"
        case .renamed(let from, _, let value): "`\(from)` removed and `\(path)` added (\(value))"
        case .kindChanged(let old, let new):
            "`\(path)` changed from \(ShapeText.text(of: old)) to \(ShapeText.text(of: new))"
        case .becameRequired: "`\(path)` became required"
        case .becameOptional: "`\(path)` became optional"
        case .enumCases(let lost, let gained):
            ([
                lost.isEmpty ? nil : "`\(path)` lost \(EnumCaseList(lost))",
                gained.isEmpty ? nil : "`\(path)` gained \(EnumCaseList(gained))",
            ])
            .compactMap { $0 }.joined(separator: "; ")
        }
    }
}

/// "the case `done`" or "the cases `done`, `archived`".
struct EnumCaseList: CustomStringConvertible {
    let cases: [String]
    init(_ cases: [String]) { self.cases = cases }
    var description: String {
        (cases.count == 1 ? "the case " : "the cases ") + cases.map { "`\($0)`" }.joined(separator: ", ")
    }
}
