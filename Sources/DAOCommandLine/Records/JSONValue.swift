/// A JSON document as the tool reads and prints it.
///
/// Numbers keep their source text: `dump` must show `9007199254740993` and `0.1` exactly as stored,
/// which a round trip through `Double` or `NSNumber` would not. Object members keep their order,
/// and duplicates, for the same reason.
indirect enum JSONValue: Equatable {
    case null
    case bool(Bool)
    /// The number's text, valid by JSON's grammar.
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([JSONMember])

    /// The value of the first member named `name`, when this is an object that has one.
    subscript(member name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }

    /// What kind of value this is, for messages such as "the key field is a number, not a string".
    var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// One `"name": value` pair of a JSON object.
struct JSONMember: Equatable {
    var name: String
    var value: JSONValue
}
