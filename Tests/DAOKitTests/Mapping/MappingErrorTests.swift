import Foundation
import Testing

@testable import DAOKit

/// Every way a conversion can fail is a `MappingError` that names both types, the reason and the
/// path, and keeps the underlying error.
@Suite("Mapping errors")
struct MappingErrorTests {
    let mapper = EntityMapper()

    @Test func aMissingKeyIsKeyNotFoundWithItsPath() throws {
        let dialog = ChatWithoutText(messages: [.init(id: 1), .init(id: 2), .init(id: 3)])
        let error = try #require(throws: MappingError.self) { try mapper.map(dialog, to: Chat.self) }
        #expect(error.kind == .keyNotFound)
        #expect(error.path == "messages[0].text")
        #expect(error.sourceType == "ChatWithoutText" && error.targetType == "Chat")
        #expect(error.description == "Cannot map ChatWithoutText to Chat: key not found at messages[0].text")
        #expect(error.underlyingError is DecodingError)
    }

    @Test func theFailingElementIsNamedByIndex() throws {
        let chat = ChatWithOptionalText(messages: [
            .init(id: 1, text: "a"), .init(id: 2, text: "b"), .init(id: 3, text: nil),
        ])
        let error = try #require(throws: MappingError.self) { try mapper.map(chat, to: Chat.self) }
        #expect(error.kind == .keyNotFound)
        #expect(error.description == "Cannot map ChatWithOptionalText to Chat: key not found at messages[2].text")
        #expect(error.codingPath.map(\.stringValue) == ["messages", "Index 2", "text"])
    }

    @Test func aNullForARequiredValueIsValueNotFound() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(ChatWithExplicitNull(), to: Chat.self)
        }
        #expect(error.kind == .valueNotFound)
        #expect(error.description == "Cannot map ChatWithExplicitNull to Chat: value not found at messages[0].text")
    }

    @Test func aValueOfAnotherKindIsTypeMismatchNamingBoth() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(["id": "seven"], to: OnlyID.self) }
        #expect(error.kind == .typeMismatch(expected: "Int", found: "String"))
        #expect(
            error.description
                == "Cannot map Dictionary<String, String> to OnlyID: type mismatch (expected Int, found String) at id")
    }

    @Test func aKeyedValueWhereAnArrayIsExpectedIsTypeMismatch() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(OnlyID(id: 1), to: [Int].self) }
        #expect(error.kind == .typeMismatch(expected: "UnkeyedDecodingContainer", found: "keyed container"))
        #expect(error.path == "<root>")
    }

    @Test func aNumberThatDoesNotFitIsNumberNotRepresentable() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(Wide(level: 300), to: Narrow.self) }
        #expect(error.kind == .numberNotRepresentable(value: "300", target: "Int8"))
        #expect(error.description == "Cannot map Wide to Narrow: number 300 is not representable as Int8 at level")
    }

    @Test func anUnknownEnumRawValueIsDataCorrupted() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(["kind": "video"], to: KindHolder.self) }
        guard let message = error.kind.message else {
            Issue.record("expected dataCorrupted, got \(error.kind)")
            return
        }
        #expect(message.contains("video"))
        #expect(error.path == "kind")
    }

    @Test func dataCorruptedThrownByUserCodeKeepsItsPathAndMessage() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(["hex": "zz"], to: HexColor.self) }
        #expect(error.kind == .dataCorrupted("not a hex colour: zz"))
        #expect(error.path == "hex")
        #expect(
            error.description
                == "Cannot map Dictionary<String, String> to HexColor: data corrupted (not a hex colour: zz) at hex")
    }

    @Test func aStrictMapperReportsUnmappedKeys() throws {
        let error = try #require(throws: MappingError.self) {
            try EntityMapper(strict: true).map(Wide(level: 1, extra: "x"), to: Narrow.self)
        }
        #expect(error.kind == .unmappedKey)
        #expect(error.path == "extra")
    }

    @Test func anErrorThrownByInitFromIsWrappedWithItsPath() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(Outer(inner: [Validated.Raw(value: 1), Validated.Raw(value: -1)]), to: ValidatedOuter.self)
        }
        #expect(error.kind == .userError)
        #expect(error.underlyingError as? ValidationError == ValidationError.negative(-1))
        #expect(error.path == "inner[1]")
        #expect(
            error.description
                == "Cannot map Outer to ValidatedOuter: error thrown by the type itself (negative(-1)) at inner[1]")
    }

    @Test func anErrorThrownByEncodeToIsWrapped() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["ok": Refusing()], to: [String: Int].self)
        }
        #expect(error.kind == .userError)
        #expect(error.underlyingError as? ValidationError == .refused)
        #expect(error.path == "ok")
    }

    @Test func aTypeThatCatchesAMappingErrorCanRecover() throws {
        let value = try mapper.map(["id": "not a number"], to: Forgiving.self)
        #expect(value.id == nil)
    }
}

// MARK: - Fixtures

struct Chat: Decodable {
    struct Line: Decodable {
        let id: Int
        let text: String
    }
    let messages: [Line]
}

struct ChatWithoutText: Encodable {
    struct Line: Encodable { let id: Int }
    let messages: [Line]
}

struct ChatWithOptionalText: Encodable {
    struct Line: Encodable {
        let id: Int
        let text: String?
    }
    let messages: [Line]
}

struct ChatWithExplicitNull: Encodable {
    struct Line: Encodable {
        enum Keys: String, CodingKey { case id, text }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(1, forKey: .id)
            try container.encodeNil(forKey: .text)
        }
    }
    let messages = [Line()]
}

struct Wide: Encodable {
    let level: Int
    var extra: String?
}

struct Narrow: Decodable { let level: Int8 }

struct KindHolder: Decodable { let kind: MessageKind }

struct HexColor: Decodable {
    let hex: UInt32
    enum CodingKeys: String, CodingKey { case hex }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .hex)
        guard let value = UInt32(text, radix: 16) else {
            throw DecodingError.dataCorruptedError(
                forKey: .hex, in: container, debugDescription: "not a hex colour: \(text)")
        }
        hex = value
    }
}

enum ValidationError: Error, Equatable {
    case negative(Int)
    case refused
}

struct Validated: Decodable {
    struct Raw: Encodable { let value: Int }
    let value: Int
    init(from decoder: any Decoder) throws {
        value = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .value)
        guard value >= 0 else { throw ValidationError.negative(value) }
    }
    enum CodingKeys: String, CodingKey { case value }
}

struct Outer: Encodable { let inner: [Validated.Raw] }
struct ValidatedOuter: Decodable { let inner: [Validated] }

struct Refusing: Encodable {
    func encode(to encoder: any Encoder) throws { throw ValidationError.refused }
}

/// Catches the mapper's error for one field and carries on, as user code may.
struct Forgiving: Decodable {
    let id: Int?
    enum CodingKeys: String, CodingKey { case id }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try? container.decode(Int.self, forKey: .id)
    }
}
