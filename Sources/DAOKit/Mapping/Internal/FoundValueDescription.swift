/// What the source holds at a coding path, in words, for a `typeMismatch` that a type's own
/// `init(from:)` threw rather than the mapper's containers.
///
/// Such errors say only what the type expected — a synthesized enum's is "Invalid number of keys
/// found, expected one." — so a user could not tell which case the data holds. The mapped tree
/// is still there when the error is translated, so the value is looked up and named instead:
/// `unknown case "urgent"` for a keyed value with one key (the form an enum case takes),
/// `"urgent"` for a string, `7` for a number.
enum FoundValueDescription {
    /// Strings longer than this are cut, so one odd value cannot make an error several KB long.
    static let maximumStringLength = 60
    /// A keyed value with more keys than this is named by its first few.
    static let maximumKeysShown = 5

    /// The description of the value at `path` below the top-level value `root` holds, or `nil`
    /// when the path leads nowhere in the tree.
    static func describe(at path: [any CodingKey], in root: ContainerNode) -> String? {
        guard root.values.count > 0, let value = value(at: path, from: root.values[0]) else { return nil }
        return describe(value)
    }

    private static func value(at path: [any CodingKey], from top: MappedValue) -> MappedValue? {
        var value = top
        for key in path {
            switch value {
            case .keyed(let node):
                guard let entry = node.keys.firstIndex(of: key.stringValue) else { return nil }
                value = node.values[entry]
            case .unkeyed(let node):
                guard let entry = key.intValue, entry >= 0, entry < node.values.count else { return nil }
                value = node.values[entry]
            default:
                return nil
            }
        }
        return value
    }

    static func describe(_ value: MappedValue) -> String {
        switch value {
        case .keyed(let node):
            switch node.keys.count {
            case 0: return "no case (an empty keyed container)"
            case 1: return "unknown case \(quoted(node.keys[0]))"
            default:
                let shown = node.keys.indices.prefix(maximumKeysShown).map { quoted(node.keys[$0]) }.joined(
                    separator: ", ")
                let more = node.keys.count > maximumKeysShown ? ", … (\(node.keys.count) keys)" : ""
                return "keyed container with keys \(shown)\(more)"
            }
        case .unkeyed(let node):
            return "unkeyed container of \(node.values.count) elements"
        case .string(let text):
            return quoted(text)
        case .bool(let flag):
            return String(flag)
        case .int(let number):
            return String(number)
        case .uint(let number):
            return String(number)
        case .double(let number):
            return String(number)
        case .float(let number):
            return String(number)
        case .wideInt, .wideUInt:
            return value.wideDescription
        default:
            return value.kindName
        }
    }

    private static func quoted(_ text: String) -> String {
        guard text.count > maximumStringLength else { return text.debugDescription }
        return String(text.prefix(maximumStringLength)).debugDescription + "…"
    }
}
