/// Prints a ``JSONValue`` as indented JSON for people and for `jq`.
///
/// Members keep their order, numbers their text, slashes and non-ASCII text stay as they are;
/// only what JSON requires is escaped.
enum JSONWriter {
    static func pretty(_ value: JSONValue, indentation: String = "  ") -> String {
        var output = ""
        write(value, level: 0, indentation: indentation, to: &output)
        return output
    }

    private static func write(_ value: JSONValue, level: Int, indentation: String, to output: inout String) {
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): writeString(text, to: &output)
        case .array(let elements):
            guard !elements.isEmpty else {
                output += "[]"
                return
            }
            output += "[\n"
            for (index, element) in elements.enumerated() {
                output += String(repeating: indentation, count: level + 1)
                write(element, level: level + 1, indentation: indentation, to: &output)
                output += index == elements.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: indentation, count: level) + "]"
        case .object(let members):
            guard !members.isEmpty else {
                output += "{}"
                return
            }
            output += "{\n"
            for (index, member) in members.enumerated() {
                output += String(repeating: indentation, count: level + 1)
                writeString(member.name, to: &output)
                output += ": "
                write(member.value, level: level + 1, indentation: indentation, to: &output)
                output += index == members.count - 1 ? "\n" : ",\n"
            }
            output += String(repeating: indentation, count: level) + "}"
        }
    }

    static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
