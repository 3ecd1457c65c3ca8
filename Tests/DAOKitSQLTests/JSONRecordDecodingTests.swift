import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitSQL

/// `JSONRecord.decode`, the last step of every read of a JSON-column context: escapes undone,
/// failures classified and named, and the key spelled out only for a record that fails.
@Suite("JSON record decoding")
struct JSONRecordDecodingTests {
    struct Note: Storable, Equatable {
        var id: String
        var body: String
    }

    /// Counts how often a read asked for the key it names in errors.
    final class KeyRequests {
        private(set) var count = 0
        func key(_ key: String) -> String {
            count += 1
            return key
        }
    }

    @Test func aRecordThatDecodesNeverAsksForItsKey() throws {
        let requests = KeyRequests()
        let record = Data(#"{"id":"n1","body":"text"}"#.utf8)
        let note = try JSONRecord.decode(Note.self, from: record, key: requests.key("n1"), location: "server")
        #expect(note == Note(id: "n1", body: "text"))
        #expect(requests.count == 0)
    }

    @Test func aRecordOfAnotherShapeIsADecodingFailureNamingItsKey() throws {
        let requests = KeyRequests()
        let record = Data(#"{"id":"n1","body":42}"#.utf8)
        let error = try #require(throws: StorageError.self) {
            try JSONRecord.decode(Note.self, from: record, key: requests.key("n1"), location: "server")
        }
        #expect(error.kind == .decodingFailed)
        #expect(error.key == "n1" && error.location == "server" && error.entityName == Note.entityName)
        #expect(requests.count >= 1)
    }

    @Test func bytesThatAreNotJSONAreACorruptRecordNamingItsKey() throws {
        let error = try #require(throws: StorageError.self) {
            try JSONRecord.decode(Note.self, from: Data("{\"id\":".utf8), key: "n1", location: "server")
        }
        #expect(error.code == .corruptRecord)
        #expect(error.key == "n1")
    }

    @Test(arguments: [
        "nul\0inside", "mark\u{10FFFF}", "mark then digits \u{10FFFF}0\u{10FFFF}1", "\0\u{10FFFF}", "plain",
    ])
    func aStringWithNULOrTheEscapeMarkReadsBackAsEncoded(_ text: String) throws {
        let note = Note(id: text, body: text)
        let record = try JSONRecord.encode(note)
        #expect(!record.json.utf8.contains(0), "PostgreSQL's jsonb refuses NUL")
        #expect(try JSONRecord.decode(Note.self, from: Data(record.json.utf8), key: text, location: "server") == note)
    }
}
