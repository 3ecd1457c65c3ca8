import Foundation
import Testing

@testable import DAOKit

/// Keyed, unkeyed, single-value and nested containers, top-level arrays and class hierarchies.
@Suite("Containers")
struct ContainerTests {
    let mapper = EntityMapper()

    @Test func aStructMapsToAFinalClassWithTheSameFieldsAndBack() throws {
        let message = Message.sample(3, note: "see you")
        let entity = try mapper.map(message, to: MessageEntity.self)
        #expect(entity.plain == message)
        #expect(try mapper.map(entity, to: Message.self) == message)
    }

    @Test func nestedKeyedAndUnkeyedValuesMapAtEveryLevel() throws {
        let dialog = Dialog(
            id: 7, isPinned: true, title: "Team", messages: (1...20).map { Message.sample($0) },
            tags: ["work", "urgent"])
        let entity = try mapper.map(dialog, to: DialogEntity.self)
        #expect(entity.messages.map(\.plain) == dialog.messages)
        #expect(entity.tags == dialog.tags)
        #expect(try mapper.map(entity, to: Dialog.self) == dialog)
    }

    @Test func aTopLevelArrayMapsElementByElement() throws {
        let messages = (1...50).map { Message.sample($0) }
        let entities = try mapper.map(messages, to: [MessageEntity].self)
        #expect(entities.map(\.plain) == messages)
        #expect(try mapper.map([Message](), to: [MessageEntity].self).isEmpty)
    }

    @Test func topLevelPrimitivesMapAsValues() throws {
        #expect(try mapper.map(42, to: Int.self) == 42)
        #expect(try mapper.map("text", to: String.self) == "text")
        #expect(try mapper.map([1, 2, 3], to: [Int64].self) == [1, 2, 3])
        #expect(try mapper.map(Optional<Int>.none, to: Int?.self) == nil)
    }

    @Test func explicitNestedContainersMapLikeImplicitOnes() throws {
        let value = NestedContainers(name: "outer", inner: 5, list: [1, 2, 3])
        #expect(try mapper.map(value, to: NestedContainers.self) == value)
        let flat = try mapper.map(value, to: NestedContainersFlatView.self)
        #expect(flat.name == "outer" && flat.details.inner == 5 && flat.details.list == [1, 2, 3])
    }

    @Test func aClassHierarchyUsingSuperEncoderKeepsBothLevels() throws {
        let dog = Dog(name: "Rex", legs: 4, isGoodBoy: true)
        let copy = try mapper.map(dog, to: Dog.self)
        #expect(copy.name == "Rex" && copy.legs == 4 && copy.isGoodBoy)
        let record = try mapper.map(dog, to: DogRecord.self)
        #expect(record.isGoodBoy && record.super.name == "Rex" && record.super.legs == 4)
    }

    @Test func aClassHierarchySharingOneContainerKeepsBothLevels() throws {
        let cat = Cat(name: "Tom", legs: 4, lives: 9)
        let copy = try mapper.map(cat, to: Cat.self)
        #expect(copy.name == "Tom" && copy.legs == 4 && copy.lives == 9)
    }

    @Test func superDecoderOfAMissingKeyReadsNullLikeJSONDecoder() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["isGoodBoy": true], to: Dog.self)
        }
        #expect(error.kind == .valueNotFound)
        #expect(error.path == "super")
    }

    @Test func customCodersMayReadKeysInAnyOrder() throws {
        let value = Reordered(a: 1, b: "two", c: 3.5, d: [4])
        #expect(try mapper.map(value, to: ReversedReader.self) == ReversedReader(a: 1, b: "two", c: 3.5, d: [4]))
    }

    @Test func allKeysListsTheSourceKeysInEncodeOrder() throws {
        let bag = try mapper.map(Reordered(a: 1, b: "two", c: 3.5, d: [4]), to: KeyBag.self)
        #expect(bag.keys == ["a", "b", "c", "d"])
    }

    @Test func singleValueWrappersMapThroughTheirWrappedValue() throws {
        let wrapped = Wrapper(inner: Message.sample(1))
        #expect(try mapper.map(wrapped, to: Wrapper.self) == wrapped)
        let unwrapped = try mapper.map(wrapped, to: MessageEntity.self)
        #expect(unwrapped.plain == wrapped.inner)
    }

    @Test func aValueThatEncodesNothingIsAnEmptyKeyedContainer() throws {
        #expect(try mapper.map(Nothing(), to: Nothing.self) == Nothing())
        #expect(try mapper.map(Nothing(), to: [String: Int].self) == [:])
    }
}

// MARK: - Fixtures

struct NestedContainers: Codable, Equatable, Sendable {
    var name: String
    var inner: Int
    var list: [Int]

    enum Keys: String, CodingKey { case name, details }
    enum DetailKeys: String, CodingKey { case inner, list }

    init(name: String, inner: Int, list: [Int]) {
        self.name = name
        self.inner = inner
        self.list = list
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        name = try container.decode(String.self, forKey: .name)
        let details = try container.nestedContainer(keyedBy: DetailKeys.self, forKey: .details)
        inner = try details.decode(Int.self, forKey: .inner)
        var list = try details.nestedUnkeyedContainer(forKey: .list)
        var items: [Int] = []
        while !list.isAtEnd { items.append(try list.decode(Int.self)) }
        self.list = items
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(name, forKey: .name)
        var details = container.nestedContainer(keyedBy: DetailKeys.self, forKey: .details)
        try details.encode(inner, forKey: .inner)
        var list = details.nestedUnkeyedContainer(forKey: .list)
        for item in self.list { try list.encode(item) }
    }
}

struct NestedContainersFlatView: Decodable {
    struct Details: Decodable {
        let inner: Int
        let list: [Int]
    }
    let name: String
    let details: Details
}

class Animal: Codable {
    var name: String
    var legs: Int
    init(name: String, legs: Int) {
        self.name = name
        self.legs = legs
    }
}

/// Encodes its superclass under `super`, the way Apple documents class hierarchies.
final class Dog: Animal, Equatable, @unchecked Sendable {
    var isGoodBoy: Bool
    enum Keys: String, CodingKey { case isGoodBoy }

    init(name: String, legs: Int, isGoodBoy: Bool) {
        self.isGoodBoy = isGoodBoy
        super.init(name: name, legs: legs)
    }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        isGoodBoy = try container.decode(Bool.self, forKey: .isGoodBoy)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(isGoodBoy, forKey: .isGoodBoy)
        try super.encode(to: container.superEncoder())
    }

    static func == (lhs: Dog, rhs: Dog) -> Bool {
        lhs.name == rhs.name && lhs.legs == rhs.legs && lhs.isGoodBoy == rhs.isGoodBoy
    }
}

struct DogRecord: Decodable {
    struct AnimalFields: Decodable {
        let name: String
        let legs: Int
    }
    let isGoodBoy: Bool
    let `super`: AnimalFields
}

/// Shares its encoder with its superclass: both write into one keyed container.
final class Cat: Animal, Equatable, @unchecked Sendable {
    var lives: Int
    enum Keys: String, CodingKey { case lives }

    init(name: String, legs: Int, lives: Int) {
        self.lives = lives
        super.init(name: name, legs: legs)
    }

    required init(from decoder: any Decoder) throws {
        lives = try decoder.container(keyedBy: Keys.self).decode(Int.self, forKey: .lives)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(lives, forKey: .lives)
        try super.encode(to: encoder)
    }

    static func == (lhs: Cat, rhs: Cat) -> Bool {
        lhs.name == rhs.name && lhs.legs == rhs.legs && lhs.lives == rhs.lives
    }
}

struct Reordered: Codable, Equatable, Sendable {
    let a: Int
    let b: String
    let c: Double
    let d: [Int]
}

/// Reads the keys in the reverse of the order they were written.
struct ReversedReader: Decodable, Equatable {
    let a: Int
    let b: String
    let c: Double
    let d: [Int]
    enum CodingKeys: String, CodingKey { case a, b, c, d }

    init(a: Int, b: String, c: Double, d: [Int]) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        d = try container.decode([Int].self, forKey: .d)
        c = try container.decode(Double.self, forKey: .c)
        b = try container.decode(String.self, forKey: .b)
        a = try container.decode(Int.self, forKey: .a)
    }
}

/// Collects `allKeys`, then reads every key so strict mode is satisfied.
struct KeyBag: Decodable {
    let keys: [String]
    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        keys = container.allKeys.map(\.stringValue)
    }
}

struct Wrapper: Codable, Equatable, Sendable {
    let inner: Message
    init(inner: Message) { self.inner = inner }
    init(from decoder: any Decoder) throws { inner = try decoder.singleValueContainer().decode(Message.self) }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(inner)
    }
}

struct Nothing: Codable, Equatable, Sendable {
    init() {}
    init(from decoder: any Decoder) throws {}
    func encode(to encoder: any Encoder) throws {}
}
