import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

@Suite("RecordFormat")
struct FileRecordFormatTests {
    let json = RecordCodec(format: .json)
    let plist = RecordCodec(format: .propertyList)
    let note = FileNote(id: "n/1", text: "hello", number: 7)

    private func decodeError(_ codec: RecordCodec, _ bytes: Data) -> StorageError? {
        do {
            _ = try codec.decode(
                FileNote.self, from: bytes, path: "/store/^file^note/n.json", entityName: "FileNote", key: "n")
            Issue.record("decoding \(bytes.count) bytes succeeded")
            return nil
        } catch {
            return error
        }
    }

    @Test func jsonRecordsAreSortedEnvelopesWithTheRealKey() throws {
        let data = try json.encode(note, key: note.id)
        let text = String(decoding: data, as: UTF8.self)
        #expect(
            text
                == #"{"checksum":"e67492e7","entity":{"id":"n/1","number":7,"text":"hello"},"formatVersion":2,"key":"n/1"}"#
        )
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["formatVersion"] as? Int == 2)
        #expect(object["checksum"] as? String == "e67492e7")
        #expect(object["key"] as? String == "n/1")
    }

    @Test func propertyListRecordsAreBinaryAndRoundTrip() throws {
        let data = try plist.encode(note, key: note.id)
        #expect(data.starts(with: Array("bplist00".utf8)))
        let decoded = try plist.decode(FileNote.self, from: data, path: "p", entityName: "FileNote", key: nil)
        #expect(decoded.key == "n/1")
        #expect(decoded.entity == note)
    }

    @Test func nonFiniteNumbersSurviveJSON() throws {
        struct Reading: Codable, Equatable {
            var id: String
            var value: Double
        }
        for value in [Double.nan, .infinity, -.infinity] {
            let data = try json.encode(Reading(id: "r", value: value), key: "r")
            let decoded = try json.decode(Reading.self, from: data, path: "p", entityName: "Reading", key: "r").entity
            #expect(decoded.value.isNaN == value.isNaN)
            if !value.isNaN { #expect(decoded.value == value) }
        }
    }

    @Test(
        "damaged files are corrupt records naming the file",
        arguments: [
            ("", "empty file"),
            (#"{"entity":{"id":"n","number":1,"text":"#, "truncated or not valid JSON"),
            ("\u{1}\u{7f}garbage\u{0}", "truncated or not valid JSON"),
            (
                #"{"entity":{"id":"n","number":1,"text":"t"},"formatVersion":3,"key":"n"}"#,
                "format version 3 is not supported; this release reads versions 1 and 2"
            ),
            (
                #"{"entity":{"id":"n","number":1,"text":"t"},"formatVersion":2,"key":"n"}"#,
                "format version 2 records begin with their checksum, and this one does not"
            ),
            (
                #"{"checksum":"00000000","entity":{"id":"n","number":1,"text":"t"},"formatVersion":2,"key":"n"}"#,
                "the record's checksum does not match its bytes: the file changed after it was written"
            ),
            (
                #"{"checksum":"0e4b1a5c","entity":{"id":"n","number":1,"text":"t"},"formatVersion":2,"key":"m"}"#,
                "the record's checksum does not match its bytes: the file changed after it was written"
            ),
            (#"{"entity":{"id":"n","number":1,"text":"t"},"key":"n"}"#, "the record has no formatVersion field"),
            (#"{"entity":{"id":"n","number":1,"text":"t"},"formatVersion":1}"#, "the record has no key field"),
            (#"{"formatVersion":1,"key":"n"}"#, "the record has no entity field"),
            (#"{"entity":{},"formatVersion":"1","key":"n"}"#, "the record's formatVersion field has the wrong type"),
            ("[1,2,3]", "the file is not a record envelope"),
        ])
    func damagedFilesAreCorruptRecords(_ contents: String, _ detail: String) throws {
        let error = try #require(decodeError(json, Data(contents.utf8)))
        #expect(error.kind == .corruptRecord(detail))
        #expect(error.location == "/store/^file^note/n.json")
        #expect(error.description.contains("/store/^file^note/n.json"))
        #expect(error.entityName == "FileNote")
    }

    @Test func anEntityThatDoesNotDecodeFromASoundEnvelopeIsADecodingFailure() throws {
        let bytes = Data(#"{"entity":{"id":"n","number":"seven","text":"t"},"formatVersion":1,"key":"n"}"#.utf8)
        let error = try #require(decodeError(json, bytes))
        #expect(error.kind == .decodingFailed)
        #expect(error.underlyingError is DecodingError)
    }

    @Test func randomBytesAreACorruptPropertyList() throws {
        let error = try #require(
            decodeError(plist, Data([0x62, 0x70, 0x6c, 0x69, 0x73, 0x74, 0x30, 0x30, 0xff, 0x00])))
        #expect(error.kind == .corruptRecord("truncated or not a property list"))
    }

    @Test func aTruncatedPropertyListIsCorrupt() throws {
        let data = try plist.encode(note, key: note.id)
        let error = try #require(decodeError(plist, data.prefix(data.count / 2)))
        #expect(error.kind == .corruptRecord("truncated or not a property list"))
    }
}
