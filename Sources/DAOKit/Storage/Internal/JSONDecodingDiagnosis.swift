import Foundation

/// Telling a JSON record that does not decode as the entity from one that is not JSON at all.
///
/// Foundation's `JSONDecoder` (swift-foundation, as on Linux) reports a number that the field's
/// type cannot hold — `5000000000` read as `Int32`, `2.5` read as `Int` — as
/// `DecodingError.dataCorrupted` at the root, "The given data was not valid JSON", with no path:
/// the words of a truncated file. The JSON contexts meet that report here: when the bytes do parse,
/// the record is sound and the entity does not decode (`.decodingFailed`), and the mapper, given the
/// parsed value, says which field holds what (`number 5000000000 is not representable as Int32
/// at big`).
package enum JSONDecodingDiagnosis {
    /// Whether `error` is the decoder saying the bytes are not JSON, which may be untrue.
    package static func claimsInvalidJSON(_ error: any Error) -> Bool {
        guard case DecodingError.dataCorrupted(let context) = error else { return false }
        return context.codingPath.isEmpty
    }

    /// The parsed JSON, or `nil` when the bytes are not one JSON value.
    package static func parse(_ data: Data) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// Why `value` does not decode as `E`: the mapper's `numberNotRepresentable` error, naming the
    /// value, the type and the field's path; `nil` when the mapper finds something else first.
    ///
    /// Only that kind is taken from the mapper, because it is the only one the decoder hides, and
    /// the mapper's other verdicts on JSON can be wrong: it does not read Base64 text as `Data`
    /// the way `JSONDecoder` does, so it may stop at a field that the decoder reads fine.
    static func explain<E: Decodable>(_ value: JSONValue, as type: E.Type) -> MappingError? {
        do {
            _ = try EntityMapper().map(value, to: E.self)
            return nil
        } catch let error as MappingError {
            guard case .numberNotRepresentable = error.kind else { return nil }
            return MappingError(
                sourceType: "the JSON record", targetType: error.targetType, kind: error.kind,
                codingPath: error.codingPath, underlyingError: error.underlyingError)
        } catch {
            return nil
        }
    }

    /// The error to report for an entity in a sound JSON record that does not decode: when the
    /// decoder's error is the pathless "not valid JSON", the mapper's explanation, or else the
    /// decoder's error restated so as not to call the record invalid JSON; otherwise the
    /// decoder's own error.
    package static func bestError<E: Decodable>(_ error: any Error, entity: JSONValue?, as type: E.Type) -> any Error {
        guard claimsInvalidJSON(error) else { return error }
        if let entity, let explanation = explain(entity, as: E.self) { return explanation }
        return DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: [],
                debugDescription: "the record is valid JSON, but a value in it does not fit its field's type "
                    + "(JSONDecoder reports this as invalid JSON, without the field)",
                underlyingError: error))
    }
}

/// A parsed JSON value, to look inside a record that the entity's decoder rejected.
package enum JSONValue: Codable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    package init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            var members: [String: JSONValue] = [:]
            for key in object.allKeys { members[key.stringValue] = try object.decode(JSONValue.self, forKey: key) }
            self = .object(members)
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [JSONValue] = []
            while !array.isAtEnd { elements.append(try array.decode(JSONValue.self)) }
            self = .array(elements)
        } else {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() {
                self = .null
            } else if let value = try? single.decode(Bool.self) {
                self = .bool(value)
            } else if let value = try? single.decode(Int64.self) {
                self = .integer(value)
            } else if let value = try? single.decode(UInt64.self) {
                self = .unsigned(value)
            } else if let value = try? single.decode(Double.self) {
                self = .double(value)
            } else {
                self = .string(try single.decode(String.self))
            }
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .integer(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .unsigned(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .double(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let elements):
            var array = encoder.unkeyedContainer()
            for element in elements { try array.encode(element) }
        case .object(let members):
            var object = encoder.container(keyedBy: Key.self)
            for (key, value) in members { try object.encode(value, forKey: Key(stringValue: key)) }
        }
    }

    /// The member `key` of an object; `nil` for anything else or a missing member.
    package subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }
}
