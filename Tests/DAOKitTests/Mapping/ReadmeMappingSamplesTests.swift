// The mapping code samples of README.md, kept compiling and passing here. When you change one,
// change the other: each `// README:` marker names the README section the code below it appears in.
// The types are nested in `ReadmeMapping` so their names do not clash with other tests' fixtures;
// in the README they are top-level.
import DAOKit
import Foundation
import Testing

enum ReadmeMapping {
    // README: Quick start: mapping — the types

    /// The app's plain, immutable value.
    struct Message: Codable, Equatable {
        let id: Int
        let text: String
        let date: Date
        let attachment: URL?
    }

    /// What a store keeps: a class with the same field names.
    final class MessageEntity: Codable {
        var id = 0
        var text = ""
        var date = Date.distantPast
        var attachment: URL?
    }

    // README: Strict and lenient mapping — a target that drops a field

    struct MessagePreview: Codable {
        let id: Int
        let text: String
    }
}

extension ReadmeMapping {
    @Suite("README mapping samples")
    struct SamplesTests {
        @Test func quickStart() throws {
            // README: Quick start: mapping
            let mapper = EntityMapper()
            let message = Message(id: 1, text: "Hello", date: Date(), attachment: nil)

            let entity = try mapper.map(message, to: MessageEntity.self)      // no translator to write
            let plain = try mapper.map(entity, to: Message.self)               // and back
            let entities = try mapper.map([message], to: [MessageEntity].self) // whole arrays too
            // end of README sample
            #expect(plain == message)
            #expect(entity.text == "Hello" && entity.attachment == nil)
            #expect(entities.map(\.id) == [1])
        }

        @Test func strictAndLenient() throws {
            let message = Message(id: 1, text: "Hello", date: Date(), attachment: nil)
            var reported: MappingError?
            // README: Strict and lenient mapping
            let preview = try EntityMapper().map(message, to: MessagePreview.self)   // fine: `date` is ignored
            do {
                _ = try EntityMapper(strict: true).map(message, to: MessagePreview.self)
            } catch let error as MappingError {
                print(error)  // Cannot map Message to MessagePreview: the target never reads this key at date
                reported = error
            }
            // end of README sample
            #expect(preview.text == "Hello")
            #expect(reported?.kind == .unmappedKey)
            #expect(reported?.description == "Cannot map Message to MessagePreview: the target never reads this key at date")
        }

        @Test func errors() throws {
            struct Chat: Codable { let messages: [Message] }
            struct Line: Codable { let id: Int; let date: Date }
            struct ChatDraft: Codable { let messages: [Line] }
            let draft = ChatDraft(messages: [Line(id: 1, date: Date())])
            struct Setting: Codable { let level: Int8 }
            var description = ""
            var outcome = ""
            // README: Errors
            do {
                _ = try EntityMapper().map(draft, to: Chat.self)
            } catch let error as MappingError {
                description = error.description  // Cannot map ChatDraft to Chat: key not found at messages[0].text
                _ = (error.kind, error.path, error.underlyingError)       // .keyNotFound, "messages[0].text", the DecodingError
            }

            do {
                _ = try EntityMapper().map(["level": 300], to: Setting.self)   // Setting.level is an Int8
            } catch MappingError.Code.numberNotRepresentable {
                outcome = "out of range"          // a code matches in `catch`, in a `switch`, or with `==`
            } catch let error as MappingError {
                switch error.code {               // codes can be added in any release: a switch needs `default:`
                case .typeMismatch: outcome = "expected \(error.kind.expectedType ?? "?"), found \(error.kind.found ?? "?")"
                default: outcome = error.description
                }
            }
            // end of README sample
            #expect(description == "Cannot map ChatDraft to Chat: key not found at messages[0].text")
            #expect(outcome == "out of range")
        }

        @Test func errorsNameAnUnknownEnumCase() throws {
            // README: Errors — the messages quoted for a value that is none of an enum's cases
            enum Priority: Codable { case low, high(reason: String) }
            struct Todo: Codable { let priority: Priority }
            struct TodoRecord: Codable { let priority: [String: [String: String]] }
            enum RawPriority: String, Codable { case low, high }
            struct RawTodo: Codable { let priority: RawPriority }

            let error = try #require(throws: MappingError.self) {
                try EntityMapper().map(TodoRecord(priority: ["urgent": [:]]), to: Todo.self)
            }
            #expect(error.description == #"Cannot map TodoRecord to Todo: type mismatch (expected Priority, found unknown case "urgent") at priority"#)
            let raw = try #require(throws: MappingError.self) {
                try EntityMapper().map(["priority": "urgent"], to: RawTodo.self)
            }
            #expect(raw.description.contains("Cannot initialize RawPriority from invalid String value urgent"))
        }
    }
}
