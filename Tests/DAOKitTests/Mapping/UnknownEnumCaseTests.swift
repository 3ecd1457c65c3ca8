import Foundation
import Testing

@testable import DAOKit

/// A stored value that is none of an enum's cases is named in the error, so the user can tell
/// which case the data holds: raw-value enums by the raw value, enums with associated values (and
/// plain synthesized enums, which are keyed the same way) by the case key.
@Suite("Unknown enum cases")
struct UnknownEnumCaseTests {
    let mapper = EntityMapper()

    @Test func anUnknownCaseOfAnEnumWithAssociatedValuesIsNamed() throws {
        let stored = TaskRecord(title: "ship", priority: ["urgent": ["_0": 3]])
        let error = try #require(throws: MappingError.self) { try mapper.map(stored, to: TaskWithLevel.self) }
        #expect(error.kind == .typeMismatch(expected: "TaskLevel", found: #"unknown case "urgent""#))
        #expect(
            error.description == "Cannot map \(type(of: stored)) to TaskWithLevel: "
                + #"type mismatch (expected TaskLevel, found unknown case "urgent") at priority"#)
    }

    @Test func anUnknownCaseOfAPlainEnumIsNamed() throws {
        let stored = TaskRecord(title: "ship", priority: ["urgent": [String: Int]()])
        let error = try #require(throws: MappingError.self) { try mapper.map(stored, to: TaskWithStage.self) }
        #expect(error.kind == .typeMismatch(expected: "TaskStage", found: #"unknown case "urgent""#))
        #expect(error.path == "priority")
    }

    @Test func anUnknownCaseAtTheTopLevelIsNamedAtTheRoot() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["later": [String: Int]()], to: TaskStage.self)
        }
        #expect(error.kind == .typeMismatch(expected: "TaskStage", found: #"unknown case "later""#))
        #expect(error.path == "<root>")
    }

    @Test func anUnknownCaseInsideAnArrayIsNamedWithItsIndex() throws {
        let stages: [[String: [String: Int]]] = [["todo": [:]], ["done": [:]], ["archived": [:]]]
        let error = try #require(throws: MappingError.self) { try mapper.map(stages, to: [TaskStage].self) }
        #expect(error.kind == .typeMismatch(expected: "TaskStage", found: #"unknown case "archived""#))
        #expect(error.path == "[2]")
    }

    @Test func anEmptyCaseContainerSaysThereIsNoCase() throws {
        let stored = TaskRecord(title: "ship", priority: [String: [String: Int]]())
        let error = try #require(throws: MappingError.self) { try mapper.map(stored, to: TaskWithStage.self) }
        #expect(error.kind == .typeMismatch(expected: "TaskStage", found: "no case (an empty keyed container)"))
    }

    @Test func aCaseContainerWithSeveralKeysNamesThem() throws {
        let stored = TaskRecord(title: "ship", priority: ["todo": [String: Int](), "done": [:]])
        let error = try #require(throws: MappingError.self) { try mapper.map(stored, to: TaskWithStage.self) }
        guard let expected = error.kind.expectedType, let found = error.kind.found else {
            Issue.record("expected a type mismatch, got \(error.kind)")
            return
        }
        #expect(expected == "TaskStage")
        #expect(found.hasPrefix("keyed container with keys "))
        #expect(found.contains(#""todo""#) && found.contains(#""done""#))
    }

    @Test func aKeyedValueWithManyKeysIsNamedByItsFirstFew() throws {
        let keys = (0..<40).map { "k\($0)" }
        let stored = TaskRecord(
            title: "ship", priority: Dictionary(uniqueKeysWithValues: keys.map { ($0, [String: Int]()) }))
        let error = try #require(throws: MappingError.self) { try mapper.map(stored, to: TaskWithStage.self) }
        guard let found = error.kind.found else {
            Issue.record("expected a type mismatch, got \(error.kind)")
            return
        }
        #expect(found.hasSuffix("… (40 keys)"))
        #expect(found.count < 120)
    }

    @Test func anUnknownStringRawValueIsNamedWithItsPath() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(["mood": "grumpy"], to: MoodHolder.self) }
        guard let message = error.kind.message else {
            Issue.record("expected dataCorrupted, got \(error.kind)")
            return
        }
        #expect(message.contains("grumpy") && message.contains("TaskMood"))
        #expect(error.path == "mood")
    }

    @Test func anUnknownIntRawValueIsNamedWithItsPath() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(["rank": 7], to: RankHolder.self) }
        guard let message = error.kind.message else {
            Issue.record("expected dataCorrupted, got \(error.kind)")
            return
        }
        #expect(message.contains("7") && message.contains("TaskRank"))
        #expect(error.path == "rank")
    }

    @Test func aMismatchATypeThrowsOnAStringNamesTheStringQuotedAndCut() throws {
        let long = String(repeating: "x", count: 200)
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["code": long], to: RefusesEveryCode.self)
        }
        guard let found = error.kind.found else {
            Issue.record("expected a type mismatch, got \(error.kind)")
            return
        }
        #expect(found == "\"" + String(repeating: "x", count: FoundValueDescription.maximumStringLength) + "\"…")
    }

    @Test func aMismatchAtAPathTheSourceLacksKeepsTheTypesOwnMessage() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["code": "A1"], to: RefusesAtMadeUpPath.self)
        }
        #expect(error.kind == .typeMismatch(expected: "Int", found: "nothing usable here"))
    }

    @Test func theMappersOwnMismatchesStillNameTheKindFound() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(["mood": 3], to: MoodHolder.self) }
        #expect(error.kind == .typeMismatch(expected: "String", found: "integer"))
    }

    @Test func aKnownCaseStillMaps() throws {
        let stored = TaskRecord(title: "ship", priority: ["high": ["reason": "launch"]])
        let task = try mapper.map(stored, to: TaskWithLevel.self)
        #expect(task.priority == .high(reason: "launch"))
    }
}

// MARK: - Fixtures

/// How an older or newer app version might have stored a task: its enum in the keyed form.
struct TaskRecord<Priority: Codable>: Codable {
    let title: String
    let priority: Priority
}

enum TaskLevel: Codable, Equatable {
    case low(Int)
    case high(reason: String)
}

struct TaskWithLevel: Codable {
    let title: String
    let priority: TaskLevel
}

enum TaskStage: Codable, Equatable {
    case todo, done
}

struct TaskWithStage: Codable {
    let title: String
    let priority: TaskStage
}

enum TaskMood: String, Codable { case happy, calm }
struct MoodHolder: Codable { let mood: TaskMood }

enum TaskRank: Int, Codable {
    case first = 1
    case second = 2
}
struct RankHolder: Codable { let rank: TaskRank }

/// Throws its own `typeMismatch` at the path of the value it refuses.
struct RefusesEveryCode: Decodable {
    enum CodingKeys: String, CodingKey { case code }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _ = try container.decode(String.self, forKey: .code)
        throw DecodingError.typeMismatch(
            Int.self,
            DecodingError.Context(
                codingPath: container.codingPath + [CodingKeys.code], debugDescription: "codes are numbers"))
    }
}

/// Throws a `typeMismatch` at a path the source does not have.
struct RefusesAtMadeUpPath: Decodable {
    enum CodingKeys: String, CodingKey { case code, elsewhere }
    init(from decoder: any Decoder) throws {
        throw DecodingError.typeMismatch(
            Int.self,
            DecodingError.Context(
                codingPath: [CodingKeys.elsewhere], debugDescription: "nothing usable here"))
    }
}
