import Foundation
import Testing

@testable import DAOKit

/// `superEncoder()` and `superDecoder()`, from every kind of container: the containers a super coder
/// hands out stay usable after user code lets go of the coder itself, a superclass may store any
/// kind of value through it, and every result is the one a JSON round trip gives.
@Suite("Super coders")
struct SuperCoderTests {
    let mapper = EntityMapper()

    @Test func aKeyedContainerOfADroppedSuperEncoderEncodesNestedValues() throws {
        let value = DropsSuperEncoder(inner: Inner(v: 7))
        #expect(try mapper.map(value, to: DropsSuperEncoder.self) == value)
        #expect(try jsonRoundTrip(value) == value)
    }

    @Test func aKeyedContainerOfADroppedSuperDecoderDecodesNestedValues() throws {
        let source = ["super": ["inner": ["v": 9]]]
        #expect(try mapper.map(source, to: DropsSuperEncoder.self) == DropsSuperEncoder(inner: Inner(v: 9)))
    }

    @Test func anUnkeyedContainerOfADroppedSuperEncoderEncodesNestedValues() throws {
        let value = DropsUnkeyedSuperEncoder(items: [Inner(v: 1), Inner(v: 2)])
        #expect(try mapper.map(value, to: DropsUnkeyedSuperEncoder.self) == value)
        #expect(try jsonRoundTrip(value) == value)
    }

    @Test func aSuperclassMayEncodeIntoAnUnkeyedContainer() throws {
        let dog = PointDog(x: 3, y: 4, name: "Rex")
        #expect(try mapper.map(dog, to: PointDog.self) == dog)
        #expect(try jsonRoundTrip(dog) == dog)
        #expect(try mapper.map(dog, to: PointDogRecord.self) == PointDogRecord(name: "Rex", super: [3, 4]))
    }

    @Test func aSuperclassMayEncodeASingleValue() throws {
        let value = SingleValueSuper(code: 42, label: "x")
        #expect(try mapper.map(value, to: SingleValueSuper.self) == value)
        #expect(try jsonRoundTrip(value) == value)
    }

    @Test func superEncoderOfAnUnkeyedContainerNestsAsJSONDoes() throws {
        let doubles = try mapper.map(ThroughUnkeyedSuperEncoder(value: [1.5]), to: [[[Double]]].self)
        let json = try JSONDecoder().decode(
            [[[Double]]].self, from: JSONEncoder().encode(ThroughUnkeyedSuperEncoder(value: [1.5])))
        #expect(doubles == [[[1.5]]])
        #expect(doubles == json)
        let strings = try mapper.map(ThroughUnkeyedSuperEncoder(value: "x"), to: [[String]].self)
        #expect(strings == [["x"]])
    }

    @Test func superDecoderOfAnUnkeyedContainerReadsTheNextElement() throws {
        let read = try mapper.map([[[1.5]]], to: ThroughUnkeyedSuperDecoder.self)
        #expect(read.value == [1.5])
    }

    @Test func anUnusedSuperEncoderLeavesAnEmptyObjectAsJSONDoes() throws {
        let mapped = try mapper.map(UnusedSuperEncoder(), to: [String: [String: Int]].self)
        let json = try JSONDecoder().decode(
            [String: [String: Int]].self, from: JSONEncoder().encode(UnusedSuperEncoder()))
        #expect(mapped == ["super": [:]])
        #expect(mapped == json)
    }

    @Test func superDecoderForAMissingKeyReadsNullSoValueNotFoundCanBeCaught() throws {
        let value = try mapper.map(["other": 1], to: OptionalSuperField.self)
        let json = try JSONDecoder().decode(OptionalSuperField.self, from: Data(#"{"other":1}"#.utf8))
        #expect(value.nope == nil)
        #expect(json.nope == nil)
    }

    @Test func superDecoderForAMissingKeyFailsAtThatKey() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["other": 1], to: RequiredSuperField.self)
        }
        #expect(error.kind == .valueNotFound)
        #expect(error.path == "base")
    }

    @Test func aSuperEncoderKeptPastItsMappingIsRefused() throws {
        let keeper = SuperContainerKeeper()
        _ = try mapper.map(KeepsSuperContainer(keeper: keeper), to: [String: [String: Int]].self)
        _ = try mapper.map(["a": ["b": 1]], to: [String: [String: Int]].self)
        #expect(throws: EncodingError.self) { try keeper.writeLate() }
        #expect(keeper.container?.codingPath.isEmpty == true)
    }
}

private func jsonRoundTrip<T: Codable>(_ value: T) throws -> T {
    try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
}

struct Inner: Codable, Equatable {
    let v: Int
}

/// Takes a keyed container from `superEncoder()` and lets the encoder itself go at once: the
/// `any Encoder` temporary dies at the end of the statement.
struct DropsSuperEncoder: Codable, Equatable {
    let inner: Inner
    enum Keys: String, CodingKey { case wrapper }
    enum BaseKeys: String, CodingKey { case inner }

    init(inner: Inner) { self.inner = inner }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingTestKey.self)
        var base = container.superEncoder().container(keyedBy: BaseKeys.self)
        try base.encode(inner, forKey: .inner)
    }

    init(from decoder: any Decoder) throws {
        let base = try decoder.container(keyedBy: MappingTestKey.self).superDecoder().container(keyedBy: BaseKeys.self)
        inner = try base.decode(Inner.self, forKey: .inner)
    }
}

/// As `DropsSuperEncoder`, with an unkeyed container from the dropped super coder.
struct DropsUnkeyedSuperEncoder: Codable, Equatable {
    let items: [Inner]

    init(items: [Inner]) { self.items = items }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingTestKey.self)
        var base = container.superEncoder().unkeyedContainer()
        for item in items { try base.encode(item) }
    }

    init(from decoder: any Decoder) throws {
        var base = try decoder.container(keyedBy: MappingTestKey.self).superDecoder().unkeyedContainer()
        var items: [Inner] = []
        while !base.isAtEnd { items.append(try base.decode(Inner.self)) }
        self.items = items
    }
}

/// A superclass that stores itself as `[x, y]`, and a subclass that hands it `superEncoder()`.
class PointBase: Codable {
    let x: Int
    let y: Int

    init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(x)
        try container.encode(y)
    }

    required init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        x = try container.decode(Int.self)
        y = try container.decode(Int.self)
    }
}

final class PointDog: PointBase, Equatable {
    let name: String
    enum Keys: String, CodingKey { case name }

    init(x: Int, y: Int, name: String) {
        self.name = name
        super.init(x: x, y: y)
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingTestKey.self)
        try container.encode(name, forKey: MappingTestKey(stringValue: "name"))
        try super.encode(to: container.superEncoder())
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MappingTestKey.self)
        name = try container.decode(String.self, forKey: MappingTestKey(stringValue: "name"))
        try super.init(from: container.superDecoder())
    }

    static func == (lhs: PointDog, rhs: PointDog) -> Bool {
        lhs.x == rhs.x && lhs.y == rhs.y && lhs.name == rhs.name
    }
}

/// How a `PointDog` is stored: the superclass's part under "super".
struct PointDogRecord: Codable, Equatable {
    let name: String
    let `super`: [Int]
}

/// Stores an `Int` through the super encoder's single-value container.
struct SingleValueSuper: Codable, Equatable {
    let code: Int
    let label: String

    init(code: Int, label: String) {
        self.code = code
        self.label = label
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingTestKey.self)
        try container.encode(label, forKey: MappingTestKey(stringValue: "label"))
        var base = container.superEncoder().singleValueContainer()
        try base.encode(code)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MappingTestKey.self)
        label = try container.decode(String.self, forKey: MappingTestKey(stringValue: "label"))
        code = try container.superDecoder().singleValueContainer().decode(Int.self)
    }
}

/// Encodes `value` as the one element of an unkeyed container, through that container's super encoder.
struct ThroughUnkeyedSuperEncoder<Value: Encodable>: Encodable {
    let value: Value

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        let element = container.superEncoder()
        var nested = element.unkeyedContainer()
        try nested.encode(value)
    }
}

/// Reads the first element of an unkeyed container through its super decoder.
struct ThroughUnkeyedSuperDecoder: Decodable {
    let value: [Double]

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var nested = try container.superDecoder().unkeyedContainer()
        value = try nested.decode([Double].self)
    }
}

/// Asks for a super encoder and stores nothing through it.
struct UnusedSuperEncoder: Encodable {
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingTestKey.self)
        _ = container.superEncoder()
    }
}

/// Reads an optional value through `superDecoder(forKey:)` for a key the source may lack, the way
/// Foundation's own tests do: catching `valueNotFound` and falling back to `nil`.
struct OptionalSuperField: Decodable {
    let nope: Int?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MappingTestKey.self)
        let base = try container.superDecoder(forKey: MappingTestKey(stringValue: "nope"))
        do {
            nope = try base.singleValueContainer().decode(Int.self)
        } catch DecodingError.valueNotFound {
            nope = nil
        }
    }
}

/// Requires a value behind `superDecoder(forKey: "base")`.
struct RequiredSuperField: Decodable {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MappingTestKey.self)
        _ = try container.superDecoder(forKey: MappingTestKey(stringValue: "base")).singleValueContainer().decode(
            Int.self)
    }
}

/// Keeps the keyed container of a super encoder for use after the mapping.
final class SuperContainerKeeper: @unchecked Sendable {
    var container: KeyedEncodingContainer<MappingTestKey>?

    func writeLate() throws {
        try container?.encode(Inner(v: 1), forKey: MappingTestKey(stringValue: "late"))
    }
}

struct KeepsSuperContainer: Encodable {
    let keeper: SuperContainerKeeper

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingTestKey.self)
        var base = container.superEncoder().container(keyedBy: MappingTestKey.self)
        try base.encode(1, forKey: MappingTestKey(stringValue: "b"))
        keeper.container = base
    }
}

/// A key for any string, for types that build their keys at run time.
struct MappingTestKey: CodingKey, Hashable {
    let stringValue: String
    init(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}
