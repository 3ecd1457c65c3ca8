import Foundation

/// The list of stored keys of one entity type, kept under the type's index key so that `fetchAll`
/// and `count` read only that type's records.
///
/// Stored as a JSON array of the entities' storage keys (unescaped) in insertion order, such as
/// `["42","7"]`. The array text is extended in place when keys are added, so saving one new
/// entity costs a copy of the text rather than re-encoding every key.
struct KeyValueIndex {
    /// The storage keys, in insertion order.
    private(set) var keys: [String]
    private var members: Set<String>
    /// The text the store holds for this index; `nil` when the store has none (no entity of the
    /// type stored). Compared with the store's text to notice changes made by others.
    private(set) var storedText: String?
    /// The compact JSON text of ``keys`` that this context writes and extends. Usually the same
    /// string as ``storedText``; it differs when another tool wrote the index with other spacing.
    private var compactText: String

    /// An index of no keys, as when the store has none.
    init() {
        keys = []
        members = []
        storedText = nil
        compactText = "[]"
    }

    /// Reads an index from its stored text.
    /// - Throws: `DecodingError` when the text is not a JSON array of strings.
    init(parsing text: String) throws {
        let parsed = try JSONDecoder().decode([String].self, from: Data(text.utf8))
        // A hand-edited index may repeat a key; listing it once keeps `count` honest.
        var seen = Set<String>(minimumCapacity: parsed.count)
        let unique = parsed.filter { seen.insert($0).inserted }
        self.init()
        let compact = self.text(adding: unique)
        commit(adding: unique, text: compact)
        // Remember what the store holds, and share its buffer when it is the compact text.
        storedText = text
        if compact == text { compactText = text }
    }

    var count: Int { keys.count }

    func contains(_ key: String) -> Bool {
        members.contains(key)
    }

    /// The text of this index with `newKeys` (none of them listed yet) added at the end: the
    /// current text with the new entries appended, not a re-encoding of every key.
    func text(adding newKeys: [String]) -> String {
        var text = compactText
        text.removeLast()  // "]"
        var isFirst = keys.isEmpty
        for key in newKeys {
            if !isFirst { text.append(",") }
            isFirst = false
            Self.appendJSONString(key, to: &text)
        }
        text.append("]")
        return text
    }

    /// Records that `text`, made by ``text(adding:)`` with the same keys, is now stored.
    /// Mutates in place, so the key list and set are not copied when the index is held only once.
    mutating func commit(adding newKeys: [String], text: String) {
        keys.append(contentsOf: newKeys)
        for key in newKeys { members.insert(key) }
        compactText = text
        storedText = text
    }

    /// This index without `removedKeys`, as it will be stored: its ``storedText`` is `nil` when no
    /// key is left, meaning the index is removed from the store.
    func removing(_ removedKeys: Set<String>) -> KeyValueIndex {
        let remaining = keys.filter { !removedKeys.contains($0) }
        var result = KeyValueIndex()
        if !remaining.isEmpty { result.commit(adding: remaining, text: result.text(adding: remaining)) }
        return result
    }

    /// Appends `value` as a JSON string literal: only `"`, `\` and control characters are escaped,
    /// everything else is kept as UTF-8, as `JSONEncoder` does.
    private static func appendJSONString(_ value: String, to text: inout String) {
        text.append("\"")
        var plainStart = value.unicodeScalars.startIndex
        var position = plainStart
        let scalars = value.unicodeScalars
        while position != scalars.endIndex {
            let scalar = scalars[position]
            let escaped: String?
            switch scalar {
            case "\"": escaped = "\\\""
            case "\\": escaped = "\\\\"
            case "\n": escaped = "\\n"
            case "\r": escaped = "\\r"
            case "\t": escaped = "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escaped = nil
            }
            if let escaped {
                text.unicodeScalars.append(contentsOf: scalars[plainStart..<position])
                text.append(escaped)
                plainStart = scalars.index(after: position)
            }
            position = scalars.index(after: position)
        }
        text.unicodeScalars.append(contentsOf: scalars[plainStart..<position])
        text.append("\"")
    }
}
