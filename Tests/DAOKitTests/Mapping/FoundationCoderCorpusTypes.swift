import Foundation

// The Codable types of `FoundationCoderCorpus`, written for DAOKit after the shapes Foundation's
// coder tests use. Each says which coder requirements it exercises.

struct Holder<Value: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
    let value: Value
}

/// Synthesized conformance with no stored properties: an empty keyed container.
struct NoFieldsStruct: Codable, Equatable, Sendable {}

final class NoFieldsClass: Codable, Equatable, Sendable {
    static func == (lhs: NoFieldsClass, rhs: NoFieldsClass) -> Bool { true }
}

/// A single `Bool` through a single-value container.
enum LightSwitch: Codable, Equatable, Sendable {
    case off, on

    init(from decoder: any Decoder) throws {
        self = try decoder.singleValueContainer().decode(Bool.self) ? .on : .off
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self == .on)
    }
}

/// A single `Double` through a single-value container.
struct Epoch: Codable, Equatable, Sendable {
    let seconds: Double
    init(seconds: Double) { self.seconds = seconds }
    init(from decoder: any Decoder) throws { seconds = try decoder.singleValueContainer().decode(Double.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(seconds)
    }
}

/// A final class holding a single `Int` through a single-value container.
final class Tally: Codable, Equatable, @unchecked Sendable {
    let count: Int
    init(count: Int) { self.count = count }
    init(from decoder: any Decoder) throws { count = try decoder.singleValueContainer().decode(Int.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(count)
    }
    static func == (lhs: Tally, rhs: Tally) -> Bool { lhs.count == rhs.count }
}

struct PostalAddress: Codable, Equatable, Sendable {
    let street: String
    let city: String
    let region: String
    let postcode: Int
    let country: String

    static let sample = PostalAddress(
        street: "1 Main Street", city: "Springfield", region: "OR", postcode: 97_477, country: "US")
}

/// A class whose subclass shares its keyed container (no `superEncoder`).
class Member: Codable, Equatable, @unchecked Sendable {
    let name: String
    let email: String

    init(name: String, email: String) {
        self.name = name
        self.email = email
    }

    func isSame(as other: Member) -> Bool { name == other.name && email == other.email }
    static func == (lhs: Member, rhs: Member) -> Bool { lhs.isSame(as: rhs) && rhs.isSame(as: lhs) }
}

final class StaffMember: Member, @unchecked Sendable {
    let staffNumber: Int
    enum CodingKeys: String, CodingKey { case staffNumber }

    init(name: String, email: String, staffNumber: Int) {
        self.staffNumber = staffNumber
        super.init(name: name, email: email)
    }

    required init(from decoder: any Decoder) throws {
        staffNumber = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .staffNumber)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(staffNumber, forKey: .staffNumber)
        try super.encode(to: encoder)
    }

    override func isSame(as other: Member) -> Bool {
        guard let staff = other as? StaffMember, staff.staffNumber == staffNumber else { return false }
        return super.isSame(as: other)
    }
}

struct Firm: Codable, Equatable, Sendable {
    let address: PostalAddress
    let staff: [StaffMember]
}

/// `true`, `false` or null through a single-value container (`encodeNil`/`decodeNil`).
enum TriState: Codable, Equatable, Sendable {
    case yes, no, unknown

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .unknown
        } else {
            self = try container.decode(Bool.self) ? .yes : .no
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .yes: try container.encode(true)
        case .no: try container.encode(false)
        case .unknown: try container.encodeNil()
        }
    }
}

struct TriStateHolder: Codable, Equatable, Sendable {
    let state: TriState
    let states: [TriState]
}

/// An array written through a single-value container, checked when read back.
struct LuckyNumbers: Codable, Equatable, Sendable {
    static let expected = [4, 8, 15, 16, 23, 42]
    init() {}
    init(from decoder: any Decoder) throws {
        guard try decoder.singleValueContainer().decode([Int].self) == Self.expected else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "wrong numbers"))
        }
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(Self.expected)
    }
}

/// A dictionary written through a single-value container.
final class Lookup: Codable, Equatable, @unchecked Sendable {
    let entries: [String: Int]
    init(entries: [String: Int]) { self.entries = entries }
    init(from decoder: any Decoder) throws { entries = try decoder.singleValueContainer().decode([String: Int].self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(entries)
    }
    static func == (lhs: Lookup, rhs: Lookup) -> Bool { lhs.entries == rhs.entries }
}

/// Decimals beyond 64 bits, which JSON writes as long number literals.
struct BigDecimals: Codable, Equatable, Sendable {
    var aboveUInt64 = Decimal(UInt64.max) + Decimal(1)
    var belowInt64 = Decimal(Int64.min) - Decimal(1)
    var huge = Decimal(sign: .plus, exponent: 100, significand: Decimal(7))
}

/// A small document with keys that are not Swift identifiers and many optionals, as in the JSON
/// test suites' sample documents.
struct Catalog: Codable, Equatable, Sendable {
    struct Entry: Codable, Equatable, Sendable {
        let id: String
        let sortKey: String?
        let seeAlso: [String]
        let cacheSeconds: Int?
        let enabled: Bool?
        enum CodingKeys: String, CodingKey {
            case id = "ID"
            case sortKey = "sort-key"
            case seeAlso = "See Also"
            case cacheSeconds = "cache.seconds"
            case enabled
        }
    }
    let title: String
    let entries: [Entry]
    enum CodingKeys: String, CodingKey {
        case title = "Title"
        case entries = "web-entries"
    }

    static let sample = Catalog(
        title: "Glossary",
        entries: [
            Entry(id: "SGML", sortKey: "SGML", seeAlso: ["GML", "XML"], cacheSeconds: 60, enabled: true),
            Entry(id: "empty", sortKey: nil, seeAlso: [], cacheSeconds: nil, enabled: nil),
        ])
}

/// `encode(contentsOf:)` into one unkeyed container, read back by counting.
struct BatchWriter: Codable, Equatable, Sendable {
    let values: [Int]
    let names: [String]

    init(values: [Int], names: [String]) {
        self.values = values
        self.names = names
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(values.count)
        try container.encode(contentsOf: values)
        try container.encode(contentsOf: names)
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        let valueCount = try container.decode(Int.self)
        values = try (0..<valueCount).map { _ in try container.decode(Int.self) }
        var names: [String] = []
        while !container.isAtEnd { names.append(try container.decode(String.self)) }
        self.names = names
    }
}

/// `encodeConditional` of a class reference, keyed and unkeyed (the coders encode it plainly).
struct ConditionalHolder: Codable, Equatable, Sendable {
    let reference: Tally
    enum CodingKeys: String, CodingKey { case reference, list }

    init(reference: Tally) { self.reference = reference }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeConditional(reference, forKey: .reference)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        try list.encodeConditional(reference)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        reference = try container.decode(Tally.self, forKey: .reference)
        var list = try container.nestedUnkeyedContainer(forKey: .list)
        guard try list.decode(Tally.self) == reference else {
            throw DecodingError.dataCorrupted(.init(codingPath: list.codingPath, debugDescription: "copies differ"))
        }
    }
}

/// Writes keys only known at run time and reads them back through `allKeys` and `contains`.
struct KeyCollector: Codable, Equatable, Sendable {
    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    let entries: [String: Int]
    init(entries: [String: Int]) { self.entries = entries }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AnyKey.self)
        for key in entries.keys.sorted() { try container.encode(entries[key]!, forKey: AnyKey(stringValue: key)) }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        guard !container.contains(AnyKey(stringValue: "never written")) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "contains a key never written"))
        }
        var entries: [String: Int] = [:]
        for key in container.allKeys where container.contains(key) {
            entries[key.stringValue] = try container.decode(Int.self, forKey: key)
        }
        self.entries = entries
    }
}

/// Synthesized coding with `Int`-backed coding keys (the key's string is the case name).
struct IntKeyed: Codable, Equatable, Sendable {
    let alpha: Int
    let beta: String
    enum CodingKeys: Int, CodingKey {
        case alpha = 10
        case beta = 20
    }
}

/// `encodeIfPresent`/`decodeIfPresent` of every primitive type in a keyed container.
struct KeyedOmittedOptionals: Codable, Equatable, Sendable {
    var bool: Bool?
    var string: String?
    var double: Double?
    var float: Float?
    var int: Int?
    var int8: Int8?
    var int16: Int16?
    var int32: Int32?
    var int64: Int64?
    var uint: UInt?
    var uint8: UInt8?
    var uint16: UInt16?
    var uint32: UInt32?
    var uint64: UInt64?
    var date: Date?

    static let full = KeyedOmittedOptionals(
        bool: true, string: "", double: .pi, float: -1.5, int: -1, int8: .min, int16: .max, int32: .min, int64: .max,
        uint: 0, uint8: .max, uint16: .max, uint32: .max, uint64: .max, date: Date(timeIntervalSinceReferenceDate: 1))
}

/// Cases with labelled, unlabelled and no associated values (synthesized keyed coding).
enum Verdict: Codable, Equatable, Sendable {
    case pending
    case accepted(score: Int, by: String)
    case rejected([String])
}

/// One of several kinds through a single-value container, tried in turn (a failed read is retried
/// as another type, as `JSONDecoder` allows).
enum OneOf: Codable, Equatable, Sendable {
    case text(String)
    case number(Int)
    case fraction(Double)
    case flag(Bool)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) {
            self = .flag(flag)
        } else if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else if let fraction = try? container.decode(Double.self) {
            self = .fraction(fraction)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        case .fraction(let fraction): try container.encode(fraction)
        case .flag(let flag): try container.encode(flag)
        }
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
/// `Int128`/`UInt128` fields, optional and in arrays (keyed and unkeyed overloads).
struct WideFields: Codable, Equatable, Sendable {
    let signed: Int128
    let unsigned: UInt128
    let optional: Int128?
    let list: [UInt128]?
}
