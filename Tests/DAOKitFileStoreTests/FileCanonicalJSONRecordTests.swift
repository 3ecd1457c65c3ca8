import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

/// The shortcut that reads a JSON record as this release writes it by decoding only its entity:
/// it must read every such record, and leave every other file to the whole envelope, so that
/// what reads and what fails is exactly what it was without it.
@Suite("File canonical JSON records")
struct FileCanonicalJSONRecordTests {
    let codec = RecordCodec(format: .json)

    @Test(
        "every record the store writes is read by the shortcut",
        arguments: ["n/1", "42", "a b", "~!#$%&'()*+,-./:;<=>?@[]^_`{|}", ""])
    func everyRecordTheStoreWritesIsReadByTheShortcut(_ key: String) throws {
        let note = FileNote(id: key, text: "hello \"quoted\" \\ é", number: 7)
        let data = try codec.encode(note, key: key)
        #expect(codec.decodeCanonicalJSON(FileNote.self, from: data, key: key) == note)
        // As the context calls it: with the entity's versioning, which for a record of the
        // current version plans no resolution — that must not read as a refusal.
        let versioning = try EntityVersioning.of(FileNote.self)
        #expect(codec.decodeCanonicalJSON(FileNote.self, from: data, key: key, versioning: versioning) == note)
    }

    /// A record of a versioned entity, written at its current version (stamped before the
    /// entity), is read by the shortcut too; one of an older version is resolved there as the
    /// whole envelope would.
    @Test func aStampedRecordOfTheCurrentVersionIsReadByTheShortcut() throws {
        let versioning = try EntityVersioning.of(StampedNote.self)
        let note = StampedNote(id: "s", text: "t", points: 3)
        let data = try codec.encode(note, key: "s", versioning: versioning)
        #expect(String(decoding: data, as: UTF8.self).contains(#""dataVersion":2,"entity":"#))
        #expect(codec.decodeCanonicalJSON(StampedNote.self, from: data, key: "s", versioning: versioning) == note)
        let older = try codec.encode(FileNote(id: "s", text: "t"), key: "s")
        #expect(
            codec.decodeCanonicalJSON(StampedNote.self, from: older, key: "s", versioning: versioning)
                == StampedNote(id: "s", text: "t", points: 5))
    }

    @Test(
        "a key JSON escapes or may spell otherwise takes the whole envelope",
        arguments: ["say \"hi\"", "back\\slash", "caf\u{E9}", "line\nbreak", "tab\t", "del\u{7F}"])
    func aKeyJSONEscapesTakesTheWholeEnvelope(_ key: String) throws {
        let note = FileNote(id: key, text: "t")
        let data = try codec.encode(note, key: key)
        #expect(RecordCodec.canonicalEntityRange(in: data, key: key) == nil)
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([note])
            #expect(try context.fetch(FileNote.self, id: key) == note)
            #expect(try context.fetchAll(FileNote.self) == [note])
        }
    }

    @Test func theShortcutNeedsTheVeryKeyInTheFile() throws {
        let data = try codec.encode(FileNote(id: "a", text: "t"), key: "a")
        #expect(codec.decodeCanonicalJSON(FileNote.self, from: data, key: "b") == nil)
        #expect(codec.decodeCanonicalJSON(FileNote.self, from: data, key: "aa") == nil)
        #expect(codec.decodeCanonicalJSON(FileNote.self, from: data, key: "") == nil)
    }

    /// Files in another layout: by hand, by `jq`, by a later release, or damaged. None may pass the
    /// shortcut; each must read (or fail) through the context exactly as the whole envelope says.
    @Test(
        "a file laid out any other way is left to the whole envelope",
        arguments: [
            // What jq writes: indented, with a newline at the end.
            "{\n  \"entity\": {\n    \"id\": \"n\",\n    \"number\": 1,\n    \"text\": \"t\"\n  },\n  \"formatVersion\": 1,\n  \"key\": \"n\"\n}\n",
            // Other field orders, spaces, a trailing newline.
            #"{"formatVersion":1,"key":"n","entity":{"id":"n","number":1,"text":"t"}}"#,
            #"{"entity":{"id":"n","number":1,"text":"t"},"formatVersion": 1,"key":"n"}"#,
            #"{"entity":{"id":"n","number":1,"text":"t"},"formatVersion":1,"key":"n"}"# + "\n",
            // A field this release does not know, between the entity and the version.
            #"{"entity":{"id":"n","number":1,"text":"t"},"extra":true,"formatVersion":1,"key":"n"}"#,
            // A later format version, or another key, with the canonical ending appended again.
            #"{"entity":{"id":"n","number":1,"text":"t"},"formatVersion":2,"key":"n","formatVersion":1,"key":"n"}"#,
            #"{"entity":{"id":"m","number":1,"text":"t"},"formatVersion":1,"key":"m","formatVersion":1,"key":"n"}"#,
            // A key spelled with an escape.
            #"{"entity":{"id":"n","number":1,"text":"t"},"formatVersion":1,"key":"\u006e"}"#,
            // Damaged: an entity that does not decode, one cut short, a missing entity, nothing at all.
            #"{"entity":{"id":"n","number":"one","text":"t"},"formatVersion":1,"key":"n"}"#,
            #"{"entity":{"id":"n","number":1,"text":"t","formatVersion":1,"key":"n"}"#,
            #"{"entity":,"formatVersion":1,"key":"n"}"#,
            #"{"entity":"#,
            "",
        ])
    func aFileLaidOutAnyOtherWayIsLeftToTheWholeEnvelope(_ contents: String) throws {
        let data = Data(contents.utf8)
        #expect(codec.decodeCanonicalJSON(FileNote.self, from: data, key: "n") == nil)
        let path = "/store/^file^note/n.json"
        let expected = Result {
            try codec.decode(FileNote.self, from: data, path: path, entityName: "FileNote", key: "n")
        }
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            let url = context.fileURL(for: FileNote.self, id: "n")
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
            let fetched = Result { try context.fetch(FileNote.self, id: "n") }
            let all = Result { try context.fetchAll(FileNote.self) }
            switch expected {
            case .success(let record) where record.key == "n":
                #expect(try fetched.get() == record.entity)
                #expect(try all.get() == [record.entity])
            case .success:
                #expect(throws: StorageError.self) { try fetched.get() }
                #expect(throws: StorageError.self) { try all.get() }
            case .failure(let error):
                let expectedError = try #require(error as? StorageError)
                for result in [fetched.map { _ in () }, all.map { _ in () }] {
                    guard case .failure(let failure) = result, let storageError = failure as? StorageError else {
                        Issue.record("expected \(expectedError), got \(result)")
                        continue
                    }
                    #expect(storageError.kind == expectedError.kind)
                    #expect(storageError.location == url.path)
                }
            }
        }
    }

    @Test func anEntityThatDoesNotDecodeIsStillADecodingFailureWithItsWholeCodingPath() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            let url = context.fileURL(for: FileNote.self, id: "n")
            try context.save([FileNote(id: "n", text: "t")])
            try Data(#"{"entity":{"id":"n","number":"one","text":"t"},"formatVersion":1,"key":"n"}"#.utf8).write(
                to: url)
            let error = try #require(throws: StorageError.self) { try context.fetch(FileNote.self, id: "n") }
            #expect(error.kind == .decodingFailed)
            #expect(error.location == url.path)
            guard case .typeMismatch(_, let decodingContext) = try #require(error.underlyingError as? DecodingError)
            else {
                Issue.record("expected a type mismatch, got \(String(describing: error.underlyingError))")
                return
            }
            #expect(decodingContext.codingPath.map(\.stringValue) == ["entity", "number"])
        }
    }
}

/// `FileNote` in a second version, which added `points` with a default.
private struct StampedNote: Storable, Equatable {
    var id: String
    var text: String
    var number: Int = 0
    var points: Int
    static var entityName: String { "FileNote" }
    static let schema = EntitySchema(version: 2, steps: [2: [.added("points", default: 5)]])
}
