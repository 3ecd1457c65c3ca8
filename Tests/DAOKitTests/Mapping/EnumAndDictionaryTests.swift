import Foundation
import Testing

@testable import DAOKit

/// Enums with raw and associated values, and dictionaries with String, Int and enum keys.
@Suite("Enums and dictionaries")
struct EnumAndDictionaryTests {
    let mapper = EntityMapper()

    @Test func rawValueEnumsMapByRawValue() throws {
        #expect(try mapper.map(MessageKind.photo, to: MessageKind.self) == .photo)
        #expect(try mapper.map(MessageKind.voice, to: String.self) == "voice")
        #expect(try mapper.map(Priority.high, to: Priority.self) == .high)
        #expect(try mapper.map(Priority.high, to: Int.self) == 2)
    }

    @Test func anUnknownRawValueIsDataCorrupted() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map("video", to: MessageKind.self) }
        guard case .dataCorrupted = error.kind else {
            Issue.record("expected dataCorrupted, got \(error.kind)")
            return
        }
        #expect(error.description.contains("Cannot map String to MessageKind"))
    }

    @Test func enumsWithAssociatedValuesKeepEveryCase() throws {
        let values: [Shape] = [
            .circle(radius: 2), .rectangle(width: 3, height: 4), .named("tri", sides: [1, 2, 3]), .empty,
        ]
        #expect(try mapper.map(values, to: [Shape].self) == values)
    }

    @Test func dictionariesWithStringKeysMap() throws {
        let scores = ["alice": 3, "bob": 5, "": 0, "ünï": 1]
        #expect(try mapper.map(scores, to: [String: Int].self) == scores)
        #expect(try mapper.map(scores, to: [String: Int64].self) == scores.mapValues(Int64.init))
    }

    @Test func dictionariesWithIntKeysMap() throws {
        let byID = [1: "one", -2: "minus two", 300: "three hundred"]
        #expect(try mapper.map(byID, to: [Int: String].self) == byID)
    }

    @Test func dictionariesWithEnumKeysMap() throws {
        let byKind: [MessageKind: Int] = [.text: 1, .photo: 2]
        #expect(try mapper.map(byKind, to: [MessageKind: Int].self) == byKind)
    }

    @Test func dictionariesOfStructsMapToDictionariesOfEntities() throws {
        let inbox = ["first": Message.sample(1), "second": Message.sample(2)]
        let entities = try mapper.map(inbox, to: [String: MessageEntity].self)
        #expect(entities.mapValues(\.plain) == inbox)
    }
}

enum Priority: Int, Codable, Sendable { case low, normal, high }

enum Shape: Codable, Equatable, Sendable {
    case circle(radius: Double)
    case rectangle(width: Double, height: Double)
    case named(String, sides: [Int])
    case empty
}
