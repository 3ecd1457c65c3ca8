import Foundation

/// The text form of shapes: field paths (`owner.name`, `items[].id`, `"odd key".x`) and value
/// types (`date?`, `[string: integer]`, `enum(open,done)`, `{}`), written and parsed.
///
/// A key or raw value made only of letters, digits, `_`, `-` and `$` is written bare; any other
/// (empty, with a dot, a space, a bracket…) is written as a JSON string literal.
enum ShapeText {
    // MARK: Writing

    /// One line per field path, a keyed value's fields right after it.
    static func lines(of fields: [EntityShape.Field], prefix: [ShapePathComponent] = []) -> [String] {
        var lines: [String] = []
        for field in fields {
            let path = prefix + [.key(field.name)]
            lines.append("\(self.path(path)): \(text(of: field.value))")
            lines += childLines(of: field.value, path: path)
        }
        return lines
    }

    /// The lines of the fields inside `value`'s innermost keyed value (through arrays and dictionaries).
    private static func childLines(of value: EntityShape.Value, path: [ShapePathComponent]) -> [String] {
        switch value.kind {
        case .keyed(let fields): lines(of: fields, prefix: path)
        case .array(let element), .dictionary(_, let element): childLines(of: element, path: path + [.element])
        default: []
        }
    }

    /// `owner.name`, `items[].id`.
    static func path(_ components: [ShapePathComponent]) -> String {
        var text = ""
        for component in components {
            switch component {
            case .element: text += "[]"
            case .key(let name): text += (text.isEmpty ? "" : ".") + quoted(name)
            }
        }
        return text
    }

    static func text(of value: EntityShape.Value) -> String {
        text(of: value.kind) + (value.isOptional ? "?" : "")
    }

    static func text(of kind: EntityShape.Kind) -> String {
        switch kind {
        case .string: "string"
        case .integer: "integer"
        case .floating: "floating"
        case .bool: "bool"
        case .date: "date"
        case .data: "data"
        case .url: "url"
        case .decimal: "decimal"
        case .uuid: "uuid"
        case .keyed: "{}"
        case .array(let element): "[\(text(of: element))]"
        case .dictionary(let integerKeys, let value): "[\(integerKeys ? "integer" : "string"): \(text(of: value))]"
        case .enumeration(let rawValues, let integers):
            "\(integers ? "integer-enum" : "enum")(\(rawValues.map(quoted).joined(separator: ",")))"
        case .recursive(let name): "recursive(\(quoted(name)))"
        }
    }

    private static let bareCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-$")

    static func quoted(_ word: String) -> String {
        if !word.isEmpty, word.allSatisfy(bareCharacters.contains) { return word }
        var text = "\""
        for scalar in word.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20: text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text + "\""
    }

    // MARK: Reading

    /// Why a line could not be read.
    struct ParseError: Error {
        let reason: String
    }

    /// The fields of a shape written by ``lines(of:prefix:)``.
    static func fields(fromLines lines: [(number: Int, text: String)]) throws -> [EntityShape.Field] {
        let root = Node(value: EntityShape.Value(.keyed([])))
        for (number, line) in lines {
            do {
                var scanner = Scanner(Array(line))
                let path = try scanner.path()
                try scanner.expect(":")
                scanner.skipSpaces()
                let value = try scanner.value()
                scanner.skipSpaces()
                guard scanner.isAtEnd else { throw ParseError(reason: "unexpected text after the type") }
                try root.insert(value, at: path[...])
            } catch let error as ParseError {
                throw ShapeSnapshotError.malformed(line: number, reason: error.reason)
            }
        }
        guard case .keyed(let fields) = root.resolved().kind else { return [] }
        return fields
    }

    /// A field read so far; the fields of its innermost keyed value are added as their lines come.
    private final class Node {
        let value: EntityShape.Value
        var children: [(String, Node)] = []

        init(value: EntityShape.Value) { self.value = value }

        /// How many arrays and dictionaries lead to the innermost keyed value; nil when there is none.
        private static func depthToKeyed(_ value: EntityShape.Value) -> Int? {
            switch value.kind {
            case .keyed: 0
            case .array(let element), .dictionary(_, let element): depthToKeyed(element).map { $0 + 1 }
            default: nil
            }
        }

        func insert(_ value: EntityShape.Value, at path: ArraySlice<ShapePathComponent>) throws {
            // path: key (element)* . key (element)* ... ending with a key.
            guard case .key(let name) = path.first else { throw ParseError(reason: "a field path starts with a key") }
            var rest = path.dropFirst()
            if rest.isEmpty {
                guard !children.contains(where: { $0.0 == name }) else {
                    throw ParseError(reason: "the field \(ShapeText.quoted(name)) is listed twice")
                }
                children.append((name, Node(value: value)))
                return
            }
            guard let child = children.last(where: { $0.0 == name })?.1 else {
                throw ParseError(reason: "its parent \(ShapeText.quoted(name)) is not listed before it")
            }
            var elements = 0
            while rest.first == .element {
                elements += 1
                rest = rest.dropFirst()
            }
            guard Self.depthToKeyed(child.value) == elements else {
                throw ParseError(reason: "its parent \(ShapeText.quoted(name)) holds no keyed value at that depth")
            }
            try child.insert(value, at: rest)
        }

        func resolved() -> EntityShape.Value {
            guard !children.isEmpty || Self.depthToKeyed(value) != nil else { return value }
            let fields = children.map { EntityShape.Field($0.0, $0.1.resolved()) }
            func replacingKeyed(_ value: EntityShape.Value) -> EntityShape.Value {
                var value = value
                switch value.kind {
                case .keyed: value.kind = .keyed(fields)
                case .array(let element): value.kind = .array(replacingKeyed(element))
                case .dictionary(let integerKeys, let element):
                    value.kind = .dictionary(integerKeys: integerKeys, replacingKeyed(element))
                default: break
                }
                return value
            }
            return replacingKeyed(value)
        }
    }

    private struct Scanner {
        let characters: [Character]
        var index = 0

        init(_ characters: [Character]) { self.characters = characters }

        var isAtEnd: Bool { index == characters.count }
        var next: Character? { isAtEnd ? nil : characters[index] }

        mutating func skipSpaces() {
            while next == " " { index += 1 }
        }

        mutating func expect(_ text: String) throws {
            for character in text {
                guard next == character else { throw ParseError(reason: "expected \"\(text)\" at column \(index + 1)") }
                index += 1
            }
        }

        mutating func consume(_ text: String) -> Bool {
            let end = index + text.count
            guard end <= characters.count, String(characters[index..<end]) == text else { return false }
            index = end
            return true
        }

        /// A bare or quoted word.
        mutating func word() throws -> String {
            if next == "\"" { return try quotedWord() }
            let start = index
            while let character = next, ShapeText.bareCharacters.contains(character) { index += 1 }
            guard index > start else { throw ParseError(reason: "expected a name at column \(index + 1)") }
            return String(characters[start..<index])
        }

        private mutating func quotedWord() throws -> String {
            let start = index
            index += 1
            while let character = next, character != "\"" {
                index += character == "\\" ? 2 : 1
            }
            guard next == "\"" else { throw ParseError(reason: "a quoted name is not closed") }
            index += 1
            let literal = String(characters[start..<index])
            guard let word = try? JSONDecoder().decode(String.self, from: Data(literal.utf8)) else {
                throw ParseError(reason: "\(literal) is not a valid quoted name")
            }
            return word
        }

        mutating func path() throws -> [ShapePathComponent] {
            var components: [ShapePathComponent] = [.key(try word())]
            while true {
                if consume("[]") {
                    components.append(.element)
                } else if consume(".") {
                    components.append(.key(try word()))
                } else {
                    return components
                }
            }
        }

        mutating func value() throws -> EntityShape.Value {
            let kind = try self.kind()
            return EntityShape.Value(kind, isOptional: consume("?"))
        }

        private mutating func kind() throws -> EntityShape.Kind {
            if consume("{}") { return .keyed([]) }
            if consume("[") {
                let first = try value()
                if consume(":") {
                    skipSpaces()
                    guard !first.isOptional, first.kind == .string || first.kind == .integer else {
                        throw ParseError(reason: "a dictionary's keys are string or integer")
                    }
                    let element = try value()
                    try expect("]")
                    return .dictionary(integerKeys: first.kind == .integer, element)
                }
                try expect("]")
                return .array(first)
            }
            let name = try word()
            switch name {
            case "string": return .string
            case "integer": return .integer
            case "floating": return .floating
            case "bool": return .bool
            case "date": return .date
            case "data": return .data
            case "url": return .url
            case "decimal": return .decimal
            case "uuid": return .uuid
            case "enum", "integer-enum":
                let rawValues = try list()
                guard !rawValues.isEmpty else { throw ParseError(reason: "an enum lists at least one case") }
                return .enumeration(rawValues: rawValues, integerRawValues: name == "integer-enum")
            case "recursive":
                let names = try list()
                guard names.count == 1 else { throw ParseError(reason: "recursive(...) names one type") }
                return .recursive(names[0])
            default:
                throw ParseError(reason: "unknown kind \(ShapeText.quoted(name))")
            }
        }

        private mutating func list() throws -> [String] {
            try expect("(")
            var words: [String] = []
            if consume(")") { return words }
            repeat {
                words.append(try word())
            } while consume(",")
            try expect(")")
            return words
        }
    }
}
