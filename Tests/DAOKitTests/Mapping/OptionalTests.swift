import Foundation
import Testing

@testable import DAOKit

/// Optionals behave as a JSON round trip would: an omitted key and a null both decode as nil,
/// and `contains` tells them apart.
@Suite("Optionals")
struct OptionalTests {
    let mapper = EntityMapper()

    @Test func anOmittedKeyDecodesAsNil() throws {
        let message = Message.sample(1, attachment: nil, note: nil)
        let entity = try mapper.map(message, to: MessageEntity.self)
        #expect(entity.attachment == nil && entity.note == nil)
        #expect(try mapper.map(entity, to: Message.self) == message)
    }

    @Test func aPresentOptionalKeepsItsValue() throws {
        let message = Message.sample(1, attachment: URL(string: "file:///tmp/x.png"), note: "note")
        let entity = try mapper.map(message, to: MessageEntity.self)
        #expect(entity.attachment == URL(string: "file:///tmp/x.png") && entity.note == "note")
    }

    @Test func containsIsFalseForAnOmittedKeyAndTrueForAnExplicitNull() throws {
        let probe = try mapper.map(NullAndOmitted(), to: PresenceProbe.self)
        #expect(probe.containsOmitted == false)
        #expect(probe.containsNull == true)
        #expect(probe.nullDecodesAsNil)
        #expect(probe.allKeys == ["explicitNull"])
    }

    @Test func anArrayOfOptionalsKeepsItsNils() throws {
        let values: [Int?] = [1, nil, 3, nil]
        #expect(try mapper.map(values, to: [Int?].self) == values)
        #expect(try mapper.map(["a": nil, "b": 2] as [String: Int?], to: [String: Int?].self) == ["a": nil, "b": 2])
    }

    @Test func nestedOptionalsOfEveryPrimitiveTypeRoundTrip() throws {
        let full = AllOptionals(
            bool: true, int8: -8, int16: -16, int32: -32, int64: -64, uint: 1, uint8: 8, uint16: 16,
            uint32: 32, uint64: 64, float: 1.5, double: 2.5, string: "s", int: -1)
        #expect(try mapper.map(full, to: AllOptionals.self) == full)
        #expect(try mapper.map(AllOptionals(), to: AllOptionals.self) == AllOptionals())
    }

    @Test func aPresentOptionalOfATypeWithItsOwnEncodingMapsAndANilOneIsOmitted() throws {
        let present = OptionalHolder(inner: OptionalInner(name: String(repeating: "n", count: 40), tags: ["a", "b"]))
        #expect(try mapper.map(present, to: OptionalHolder.self) == present)
        let absent = try EntityMapper(strict: true).map(OptionalHolder(inner: nil), to: [String: Int].self)
        #expect(absent.isEmpty)
    }

    @Test func anErrorThrownByAPresentOptionalsOwnEncodingIsReportedAtItsField() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(RefusingOptionalHolder(refusing: RefusingValue()), to: [String: Int].self)
        }
        #expect(error.path == "refusing")
        #expect(error.underlyingError is RefusingValue.Refused)
    }

    @Test func aNullForANonOptionalIsValueNotFound() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["id": nil] as [String: Int?], to: OnlyID.self)
        }
        #expect(error.kind == .valueNotFound)
        #expect(error.path == "id")
    }
}

struct NullAndOmitted: Encodable {
    enum Keys: String, CodingKey { case explicitNull, omitted }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encodeNil(forKey: .explicitNull)
        try container.encodeIfPresent(Int?.none, forKey: .omitted)
    }
}

struct PresenceProbe: Decodable {
    let containsOmitted: Bool
    let containsNull: Bool
    let nullDecodesAsNil: Bool
    let allKeys: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: NullAndOmitted.Keys.self)
        containsOmitted = container.contains(.omitted)
        containsNull = container.contains(.explicitNull)
        nullDecodesAsNil =
            try container.decodeIfPresent(Int.self, forKey: .explicitNull) == nil
            && container.decodeNil(forKey: .explicitNull)
        allKeys = container.allKeys.map(\.stringValue)
    }
}

struct AllOptionals: Codable, Equatable, Sendable {
    var bool: Bool?
    var int8: Int8?
    var int16: Int16?
    var int32: Int32?
    var int64: Int64?
    var uint: UInt?
    var uint8: UInt8?
    var uint16: UInt16?
    var uint32: UInt32?
    var uint64: UInt64?
    var float: Float?
    var double: Double?
    var string: String?
    var int: Int?
}

struct OnlyID: Codable, Equatable {
    let id: Int
}

/// A struct with an optional field of a type that is not a primitive: `encodeIfPresent<T>`'s path.
struct OptionalHolder: Codable, Equatable {
    var inner: OptionalInner?
}

struct OptionalInner: Codable, Equatable {
    var name: String
    var tags: [String]
}

/// An optional field whose value's own `encode(to:)` throws.
struct RefusingOptionalHolder: Encodable {
    var refusing: RefusingValue?
}

struct RefusingValue: Encodable {
    struct Refused: Error {}
    func encode(to encoder: any Encoder) throws { throw Refused() }
}
