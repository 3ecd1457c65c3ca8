import Foundation
import Testing

@testable import DAOKit

/// A strict mapper refuses to drop a source field the target never reads, at any depth.
@Suite("Strict mode")
struct StrictModeTests {
    let strict = EntityMapper(strict: true)

    @Test func aTargetThatReadsEveryKeyPasses() throws {
        let message = Message.sample(1, note: "n")
        #expect(try strict.map(message, to: MessageEntity.self).plain == message)
        let dialog = Dialog(id: 1, isPinned: false, title: "t", messages: [message], tags: [])
        #expect(try strict.map(dialog, to: DialogEntity.self).messages.map(\.plain) == [message])
    }

    @Test func aTopLevelKeyTheTargetIgnoresIsAnUnmappedKey() throws {
        let error = try #require(throws: MappingError.self) {
            try strict.map(Message.sample(1), to: MessageSummary.self)
        }
        #expect(error.kind == .unmappedKey)
        #expect(error.path == "date")
    }

    @Test func aNestedKeyTheTargetIgnoresIsReportedWithItsFullPath() throws {
        let dialog = Dialog(id: 1, isPinned: false, title: "t", messages: (1...4).map { Message.sample($0) }, tags: [])
        let error = try #require(throws: MappingError.self) { try strict.map(dialog, to: DialogSummary.self) }
        #expect(error.kind == .unmappedKey)
        #expect(error.path == "messages[0].date")
        #expect(
            error.description
                == "Cannot map Dialog to DialogSummary: the target never reads this key at messages[0].date")
    }

    @Test func arrayElementsTheTargetNeverReadsAreUnmapped() throws {
        let error = try #require(throws: MappingError.self) { try strict.map([1, 2, 3], to: FirstTwo.self) }
        #expect(error.kind == .unmappedKey)
        #expect(error.path == "[2]")
    }

    @Test func nullsTheTargetIgnoresCarryNothingAndPass() throws {
        let value = try strict.map(NullAndOmitted(), to: Nothing.self)
        #expect(value == Nothing())
    }

    @Test func theSameMismatchPassesInLenientMode() throws {
        let summary = try EntityMapper().map(Message.sample(1), to: MessageSummary.self)
        #expect(summary.id == 1)
    }

    @Test func keysReadThroughAllKeysCountAsRead() throws {
        let scores = ["a": 1, "b": 2]
        #expect(try strict.map(scores, to: [String: Int].self) == scores)
    }

    @Test func aSharedClassHierarchyContainerIsFullyRead() throws {
        let cat = try strict.map(Cat(name: "Tom", legs: 4, lives: 9), to: Cat.self)
        #expect(cat.lives == 9)
        let dog = try strict.map(Dog(name: "Rex", legs: 4, isGoodBoy: true), to: Dog.self)
        #expect(dog.name == "Rex")
    }
}

struct MessageSummary: Decodable {
    let id: Int
    let text: String
}

struct DialogSummary: Decodable {
    let id: Int
    let isPinned: Bool
    let title: String
    let messages: [MessageSummary]
    let tags: [String]
}

struct FirstTwo: Decodable {
    let first: Int
    let second: Int
    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        first = try container.decode(Int.self)
        second = try container.decode(Int.self)
    }
}
