import Foundation
import Testing

@testable import DAOKit

/// A key written twice keeps the last value, as in a JSON object — for keys built at run time, for
/// keys that are equal as Swift strings but not byte for byte, and in strict mode.
@Suite("Repeated keys")
struct RepeatedKeyTests {
    @Test func aLongKeyBuiltAtRunTimeAndWrittenTwiceKeepsTheLastValue() throws {
        let value = WritesTwice(
            first: "user_\(Int.random(in: 1000...9999))_name_of_the_user", firstValue: 1, secondValue: 2)
        #expect(try EntityMapper().map(value, to: [String: Int].self) == [value.first: 2])
        #expect(try jsonMap(value) == [value.first: 2])
    }

    @Test func aShortKeyWrittenOnceSmallAndOnceOnTheHeapIsOneKey() throws {
        // A short key is usually a small string, whose bytes the mapper reads from the string's own
        // words; the same key held in heap storage must land on the same filter bit.
        for length in [1, 7, 8, 9, 15] {
            let small = String(repeating: "k", count: length)
            var heap = String()
            heap.reserveCapacity(64)
            heap.append(small)
            let value = WritesTwice(first: small, second: heap, firstValue: 1, secondValue: 2)
            #expect(try EntityMapper().map(value, to: [String: Int].self) == [small: 2])
            let reversed = WritesTwice(first: heap, second: small, firstValue: 1, secondValue: 2)
            #expect(try EntityMapper(strict: true).map(reversed, to: [String: Int].self) == [small: 2])
        }
    }

    @Test func shortKeysThatDifferOnlyInTheirLastByteAreTwoKeys() throws {
        let value = WritesTwice(first: "receiverIa", second: "receiverIb", firstValue: 1, secondValue: 2)
        #expect(try EntityMapper().map(value, to: [String: Int].self) == ["receiverIa": 1, "receiverIb": 2])
    }

    @Test func aStrictMapperReadsARepeatedRunTimeKeyOnce() throws {
        let value = WritesTwice(
            first: String(repeating: "long_key_", count: 4) + "\(Int.random(in: 0...9))", firstValue: 1, secondValue: 2)
        #expect(try EntityMapper(strict: true).map(value, to: [String: Int].self) == [value.first: 2])
    }

    @Test func canonicallyEquivalentKeysAreOneKey() throws {
        let precomposed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let value = WritesTwice(first: precomposed, second: decomposed, firstValue: 1, secondValue: 2)
        let mapped = try EntityMapper().map(value, to: [String: Int].self)
        #expect(mapped.count == 1)
        #expect(mapped[precomposed] == 2)
        #expect(mapped == (try jsonMap(value)))
    }

    @Test func aNonASCIIKeyEqualToAnEarlierASCIIKeyReplacesIt() throws {
        // KELVIN SIGN is canonically equivalent to the letter K.
        let value = WritesTwice(first: "K", second: "\u{212A}", firstValue: 1, secondValue: 2)
        let mapped = try EntityMapper().map(value, to: [String: Int].self)
        #expect(mapped == ["K": 2])
        #expect(mapped == (try jsonMap(value)))
    }

    @Test func anASCIIKeyEqualToAnEarlierNonASCIIKeyReplacesIt() throws {
        let value = WritesTwice(first: "\u{212A}", second: "K", firstValue: 1, secondValue: 2)
        #expect(try EntityMapper().map(value, to: [String: Int].self) == ["K": 2])
    }

    @Test func distinctNonASCIIKeysAreAllKept() throws {
        let words = (0..<2_000).map { "ключ-\($0)-é" }
        let dictionary = Dictionary(uniqueKeysWithValues: words.enumerated().map { ($1, $0) })
        #expect(try EntityMapper().map(dictionary, to: [String: Int].self) == dictionary)
    }

    @Test func askingTwiceForTheNestedContainersOfOneKeyKeepsWhatBothWrote() throws {
        let value = NestedTwice(first: 1, second: 2, list: [3, 4, 5])
        #expect(try EntityMapper().map(value, to: NestedTwice.self) == value)
        #expect(try JSONDecoder().decode(NestedTwice.self, from: JSONEncoder().encode(value)) == value)
    }

    @Test func aRepeatedKeyInANestedContainerKeepsTheLastValue() throws {
        let key = "nested_" + String(Int.random(in: 100_000...999_999)) + "_key_of_some_length"
        let value = WritesTwiceNested(key: key)
        #expect(try EntityMapper().map(value, to: [String: [String: Int]].self) == ["inner": [key: 2]])
    }
}

private func jsonMap<T: Encodable>(_ value: T) throws -> [String: Int] {
    try JSONDecoder().decode([String: Int].self, from: JSONEncoder().encode(value))
}

/// Writes `firstValue` under `first`, then `secondValue` under `second` (the same key by default),
/// each key a fresh `String` made at run time.
struct WritesTwice: Encodable {
    let first: String
    var second: String?
    let firstValue: Int
    let secondValue: Int

    init(first: String, second: String? = nil, firstValue: Int, secondValue: Int) {
        self.first = first
        self.second = second
        self.firstValue = firstValue
        self.secondValue = secondValue
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingTestKey.self)
        try container.encode(firstValue, forKey: MappingTestKey(stringValue: freshCopy(of: first)))
        try container.encode(secondValue, forKey: MappingTestKey(stringValue: freshCopy(of: second ?? first)))
    }
}

/// Writes one run-time key twice in a nested keyed container.
struct WritesTwiceNested: Encodable {
    let key: String
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingTestKey.self)
        var inner = container.nestedContainer(
            keyedBy: MappingTestKey.self, forKey: MappingTestKey(stringValue: "inner"))
        try inner.encode(1, forKey: MappingTestKey(stringValue: freshCopy(of: key)))
        try inner.encode(2, forKey: MappingTestKey(stringValue: freshCopy(of: key)))
    }
}

/// A new `String` with the same bytes as `string`: for a long string, its own heap buffer.
func freshCopy(of string: String) -> String {
    String(decoding: Array(string.utf8), as: UTF8.self)
}

/// Asks twice for the nested containers of one key, writing through each.
struct NestedTwice: Codable, Equatable {
    let first: Int
    let second: Int
    let list: [Int]

    init(first: Int, second: Int, list: [Int]) {
        self.first = first
        self.second = second
        self.list = list
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: MappingTestKey.self)
        var one = container.nestedContainer(keyedBy: MappingTestKey.self, forKey: MappingTestKey(stringValue: "shared"))
        try one.encode(first, forKey: MappingTestKey(stringValue: "first"))
        var two = container.nestedContainer(keyedBy: MappingTestKey.self, forKey: MappingTestKey(stringValue: "shared"))
        try two.encode(second, forKey: MappingTestKey(stringValue: "second"))
        var listOne = container.nestedUnkeyedContainer(forKey: MappingTestKey(stringValue: "list"))
        try listOne.encode(list[0])
        var listTwo = container.nestedUnkeyedContainer(forKey: MappingTestKey(stringValue: "list"))
        for element in list.dropFirst() { try listTwo.encode(element) }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: MappingTestKey.self)
        let shared = try container.nestedContainer(
            keyedBy: MappingTestKey.self, forKey: MappingTestKey(stringValue: "shared"))
        first = try shared.decode(Int.self, forKey: MappingTestKey(stringValue: "first"))
        second = try shared.decode(Int.self, forKey: MappingTestKey(stringValue: "second"))
        list = try container.decode([Int].self, forKey: MappingTestKey(stringValue: "list"))
    }
}
