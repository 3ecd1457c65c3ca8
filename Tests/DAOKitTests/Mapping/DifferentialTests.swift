import Foundation
import Testing

@testable import DAOKit

/// Mapping a value to its own type must give what a `JSONEncoder`/`JSONDecoder` round trip gives,
/// wherever that round trip is lossless — over a corpus of Codable shapes.
@Suite("Differential against JSON")
struct DifferentialTests {
    @Test(arguments: DifferentialCorpus.cases)
    func mappingAValueToItsOwnTypeEqualsAJSONRoundTrip(_ testCase: DifferentialCase) throws {
        try testCase.check(EntityMapper())
    }

    @Test(arguments: DifferentialCorpus.cases)
    func aStrictMapperAgreesBecauseAValueReadsAllItWrites(_ testCase: DifferentialCase) throws {
        try testCase.check(EntityMapper(strict: true))
    }

    @Test func theCorpusCoversAtLeastThirtyTypes() {
        #expect(Set(DifferentialCorpus.cases.map(\.typeName)).count >= 30)
    }
}

/// One value of one type, with the comparison that applies to it.
struct DifferentialCase: Sendable, CustomTestStringConvertible {
    let typeName: String
    let check: @Sendable (EntityMapper) throws -> Void
    var testDescription: String { typeName }

    init<T: Codable & Equatable & Sendable>(_ value: T) {
        typeName = String(describing: T.self)
        check = { mapper in
            let json = try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
            #expect(json == value, "the JSON round trip of \(T.self) is lossy; this case does not belong in the corpus")
            let mapped = try mapper.map(value, to: T.self)
            #expect(mapped == json)
            #expect(mapped == value)
        }
    }
}

enum DifferentialCorpus {
    static let cases: [DifferentialCase] = [
        DifferentialCase(Message.sample(1, note: "hi")),
        DifferentialCase(
            Dialog(id: 1, isPinned: true, title: "t", messages: (1...3).map { Message.sample($0) }, tags: ["a"])),
        DifferentialCase(NestedContainers(name: "n", inner: 2, list: [3, 4])),
        DifferentialCase(Dog(name: "Rex", legs: 4, isGoodBoy: true)),
        DifferentialCase(Cat(name: "Tom", legs: 4, lives: 9)),
        DifferentialCase(Puppy(name: "Bit", legs: 4, isGoodBoy: false, ageInWeeks: 9)),
        DifferentialCase(Shape.rectangle(width: 2, height: 3)),
        DifferentialCase([Shape.circle(radius: 1), .named("hex", sides: [1, 2, 3, 4, 5, 6]), .empty]),
        DifferentialCase(Priority.normal),
        DifferentialCase(MessageKind.voice),
        DifferentialCase(["a": 1, "b": 2]),
        DifferentialCase([3: "three", -1: "minus one"]),
        DifferentialCase([MessageKind.photo: 2, .text: 1]),
        DifferentialCase([1, nil, 3] as [Int?]),
        DifferentialCase(
            AllOptionals(
                bool: false, int8: 1, int16: 2, int32: 3, int64: 4, uint: 5, uint8: 6, uint16: 7,
                uint32: 8, uint64: 9, float: 10.5, double: 11.25, string: "12", int: 13)),
        DifferentialCase(AllOptionals()),
        DifferentialCase(Reordered(a: 1, b: "b", c: 2.5, d: [])),
        DifferentialCase(Tree.node("root", [.leaf(1), .node("inner", [.leaf(2), .leaf(3)])])),
        DifferentialCase(Set(["x", "y", "z"])),
        DifferentialCase([[1, 2], [], [3]]),
        DifferentialCase(
            Invoiced(total: Decimal(string: "1234.5678")!, lines: [Decimal(1), Decimal(string: "0.01")!])),
        DifferentialCase(
            Stamped(
                at: Date(timeIntervalSinceReferenceDate: 123_456.789), id: UUID(),
                link: URL(string: "https://swift.org/a?b=c")!)),
        DifferentialCase(Blob(bytes: Data([0, 1, 2, 255]))),
        DifferentialCase(Extremes()),
        DifferentialCase(Floats(single: 1.5, double: -0.25, tiny: .leastNonzeroMagnitude)),
        DifferentialCase(Wrapper(inner: Message.sample(9))),
        DifferentialCase(GenericBox(value: Nothing(), label: "a value that encodes nothing")),
        DifferentialCase(GenericBox(value: [Message.sample(2)], label: "box")),
        DifferentialCase(["inbox": [Message.sample(1)], "archive": []]),
        DifferentialCase(Renamed(userName: "ann", isAdmin: true)),
        DifferentialCase(ExplicitNulls(first: nil, second: 2)),
        DifferentialCase(3..<7),
        DifferentialCase(["a": [1: true, 2: false]]),
        DifferentialCase(OptionalEnums(kind: .photo, kinds: [.text, .voice], missing: nil)),
        DifferentialCase(DeepStruct(level1: .init(level2: .init(level3: .init(values: [1, 2, 3]))))),
        DifferentialCase(WithSingleValueFields(celsius: Temperature(value: 21.5), rating: Temperature(value: -3))),
    ]
}

// MARK: - Corpus types

/// Three levels, the middle one encoding its superclass under a key of its own choosing.
final class Puppy: Animal, Equatable, @unchecked Sendable {
    var isGoodBoy: Bool
    var ageInWeeks: Int
    enum Keys: String, CodingKey { case isGoodBoy, ageInWeeks, animal }
    init(name: String, legs: Int, isGoodBoy: Bool, ageInWeeks: Int) {
        self.isGoodBoy = isGoodBoy
        self.ageInWeeks = ageInWeeks
        super.init(name: name, legs: legs)
    }
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        isGoodBoy = try container.decode(Bool.self, forKey: .isGoodBoy)
        ageInWeeks = try container.decode(Int.self, forKey: .ageInWeeks)
        try super.init(from: container.superDecoder(forKey: .animal))
    }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(isGoodBoy, forKey: .isGoodBoy)
        try container.encode(ageInWeeks, forKey: .ageInWeeks)
        try super.encode(to: container.superEncoder(forKey: .animal))
    }
    static func == (lhs: Puppy, rhs: Puppy) -> Bool {
        lhs.name == rhs.name && lhs.legs == rhs.legs && lhs.isGoodBoy == rhs.isGoodBoy
            && lhs.ageInWeeks == rhs.ageInWeeks
    }
}

indirect enum Tree: Codable, Equatable, Sendable {
    case leaf(Int)
    case node(String, [Tree])
}

struct Invoiced: Codable, Equatable, Sendable {
    let total: Decimal
    let lines: [Decimal]
}

struct Stamped: Codable, Equatable, Sendable {
    let at: Date
    let id: UUID
    let link: URL
}

struct Blob: Codable, Equatable, Sendable { let bytes: Data }

struct Extremes: Codable, Equatable, Sendable {
    var int8 = Int8.min
    var int16 = Int16.max
    var int32 = Int32.min
    var int64 = Int64.max
    var uint8 = UInt8.max
    var uint16 = UInt16.max
    var uint32 = UInt32.max
    var uint64 = UInt64.max
    var int = Int.min
    var uint = UInt.max
}

struct Floats: Codable, Equatable, Sendable {
    let single: Float
    let double: Double
    let tiny: Double
}

struct GenericBox<Value: Codable & Equatable & Sendable>: Codable, Equatable, Sendable {
    let value: Value
    let label: String
}

struct Renamed: Codable, Equatable, Sendable {
    let userName: String
    let isAdmin: Bool
    enum CodingKeys: String, CodingKey {
        case userName = "user_name"
        case isAdmin = "is_admin"
    }
}

/// Writes nil with `encodeNil` rather than omitting it, and reads it back with `decodeNil`.
struct ExplicitNulls: Codable, Equatable, Sendable {
    let first: Int?
    let second: Int?
    enum CodingKeys: String, CodingKey { case first, second }
    init(first: Int?, second: Int?) {
        self.first = first
        self.second = second
    }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        first = try container.decodeNil(forKey: .first) ? nil : container.decode(Int.self, forKey: .first)
        second = try container.decodeNil(forKey: .second) ? nil : container.decode(Int.self, forKey: .second)
    }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let first { try container.encode(first, forKey: .first) } else { try container.encodeNil(forKey: .first) }
        if let second {
            try container.encode(second, forKey: .second)
        } else {
            try container.encodeNil(forKey: .second)
        }
    }
}

struct OptionalEnums: Codable, Equatable, Sendable {
    let kind: MessageKind?
    let kinds: [MessageKind]?
    let missing: Priority?
}

struct DeepStruct: Codable, Equatable, Sendable {
    struct Level1: Codable, Equatable, Sendable { let level2: Level2 }
    struct Level2: Codable, Equatable, Sendable { let level3: Level3 }
    struct Level3: Codable, Equatable, Sendable { let values: [Int] }
    let level1: Level1
}

/// A value type that encodes itself as a single number.
struct Temperature: Codable, Equatable, Sendable {
    let value: Double
    init(value: Double) { self.value = value }
    init(from decoder: any Decoder) throws { value = try decoder.singleValueContainer().decode(Double.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

struct WithSingleValueFields: Codable, Equatable, Sendable {
    let celsius: Temperature
    let rating: Temperature
}
