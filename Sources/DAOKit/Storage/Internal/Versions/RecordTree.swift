import Foundation

/// A stored record as a tree of values, read through whatever decoder the context reads records
/// with (JSON, property list): what a migration step (``MigratingRecord``) rewrites, before the
/// record is decoded as the entity.
///
/// The fence around generic reading. Invariant: writing a tree as JSON (``json``) and decoding a
/// value from it with ``decoder`` gives the value the context's own decoder gives from the record,
/// for every value DAOKit's contexts store. That holds because each leaf keeps what the record
/// holds exactly: integers as `Int64`/`UInt64`, other numbers as `Decimal` when JSON spells them
/// (its digits, not a `Double`'s) or as `Double`, dates and data as themselves (property lists),
/// and NaN and the infinities as the strings DAOKit's JSON writes for them.
package enum RecordTree: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case decimal(Decimal)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case array([RecordTree])
    /// Members in the order the record holds them.
    case object([(name: String, value: RecordTree)])

    package static func == (lhs: RecordTree, rhs: RecordTree) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.unsigned(let a), .unsigned(let b)): a == b
        case (.decimal(let a), .decimal(let b)): a == b
        case (.double(let a), .double(let b)): a.bitPattern == b.bitPattern
        case (.string(let a), .string(let b)): a == b
        case (.date(let a), .date(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        default: false
        }
    }

    /// The JSON coders of DAOKit's JSON contexts (NaN and the infinities as strings), which
    /// ``MigratingRecord`` and the entity of a migrated record are decoded and encoded with.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }()
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }()

    /// The tree of `value`, encoded as DAOKit's JSON contexts encode it.
    static func of<T: Encodable>(_ value: T) throws -> RecordTree {
        let data = try encoder.encode([value])
        guard case .array(let elements) = try decoder.decode(RecordTree.self, from: data), elements.count == 1 else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: [], debugDescription: "the value did not encode as one value"))
        }
        return elements[0]
    }

    /// `T` decoded from this tree, as the context's decoder would decode it from the record.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let data = Data(("[" + json + "]").utf8)
        return try RelativeURLCoding.decode(
            data, plain: { try Self.decoder.decode([T].self, from: $0)[0] },
            keepingURLs: { try Self.decoder.decode([URLKeepingDecodable<T>].self, from: $0)[0].value })
    }

    /// The tree as JSON text: numbers as their exact text, a date as its seconds since 2001 and
    /// data as Base64, as `JSONEncoder` writes them.
    var json: String {
        var text = ""
        write(to: &text)
        return text
    }

    private func write(to text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .integer(let number): text += String(number)
        case .unsigned(let number): text += String(number)
        case .decimal(let number): text += number.description
        case .double(let number): Self.write(number, to: &text)
        case .string(let string): Self.write(string, to: &text)
        case .date(let date): Self.write(date.timeIntervalSinceReferenceDate, to: &text)
        case .data(let data): Self.write(data.base64EncodedString(), to: &text)
        case .array(let elements):
            text += "["
            for (position, element) in elements.enumerated() {
                if position > 0 { text += "," }
                element.write(to: &text)
            }
            text += "]"
        case .object(let members):
            text += "{"
            for (position, member) in members.enumerated() {
                if position > 0 { text += "," }
                Self.write(member.name, to: &text)
                text += ":"
                member.value.write(to: &text)
            }
            text += "}"
        }
    }

    private static func write(_ number: Double, to text: inout String) {
        if number.isNaN {
            text += "\"NaN\""
        } else if number.isInfinite {
            text += number < 0 ? "\"-Infinity\"" : "\"+Infinity\""
        } else {
            text += "\(number)"
        }
    }

    private static func write(_ string: String, to text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\u{00}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }

    /// The member `name`, when this is an object that has one.
    subscript(member name: String) -> RecordTree? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }
}

extension RecordTree: Decodable {
    /// Reads any value through any decoder, trying the kinds of value in turn: the single values
    /// from the most exact reading to the least, then an object, then an array. Slow (a thrown
    /// error per kind tried), and only used for records that a migration step rewrites.
    package init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() {
                self = .null
                return
            }
            if let value = try? single.decode(Bool.self) {
                self = .bool(value)
                return
            }
            if let value = try? single.decode(Int64.self) {
                self = .integer(value)
                return
            }
            if let value = try? single.decode(UInt64.self) {
                self = .unsigned(value)
                return
            }
            if let value = try? single.decode(Double.self) {
                // JSON spells a number in digits that a `Decimal` keeps exactly (a `Decimal`
                // field's 38 of them), and written back they read as the same `Double` too.
                if let exact = try? single.decode(Decimal.self), exact.isFinite {
                    self = .decimal(exact)
                } else {
                    self = .double(value)
                }
                return
            }
            if let value = try? single.decode(Decimal.self) {
                // A property list keeps a `Decimal` as a dictionary of its parts.
                self = .decimal(value)
                return
            }
            if let value = try? single.decode(String.self) {
                self = .string(value)
                return
            }
            if let value = try? single.decode(Date.self) {
                self = .date(value)
                return
            }
            if let value = try? single.decode(Data.self) {
                self = .data(value)
                return
            }
        }
        if let keyed = try? decoder.container(keyedBy: StoredFieldKey.self) {
            self = .object(try keyed.allKeys.map { ($0.stringValue, try keyed.decode(RecordTree.self, forKey: $0)) })
            return
        }
        var unkeyed = try decoder.unkeyedContainer()
        var elements: [RecordTree] = []
        while !unkeyed.isAtEnd { elements.append(try unkeyed.decode(RecordTree.self)) }
        self = .array(elements)
    }
}

extension RecordTree: Encodable {
    /// Writes the tree back through any encoder, each leaf as the type it was read as, so that
    /// the coder that read it writes the same record; an object's `null` members are left out,
    /// as `encodeIfPresent` leaves out `nil`.
    package func encode(to encoder: any Encoder) throws {
        switch self {
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let members):
            var container = encoder.container(keyedBy: StoredFieldKey.self)
            for member in members where member.value != .null {
                try container.encode(member.value, forKey: StoredFieldKey(member.name))
            }
        default:
            var container = encoder.singleValueContainer()
            switch self {
            case .null: try container.encodeNil()
            case .bool(let value): try container.encode(value)
            case .integer(let value): try container.encode(value)
            case .unsigned(let value): try container.encode(value)
            case .decimal(let value): try container.encode(value)
            case .double(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            case .date(let value): try container.encode(value)
            case .data(let value): try container.encode(value)
            case .array, .object: break  // handled above
            }
        }
    }
}
