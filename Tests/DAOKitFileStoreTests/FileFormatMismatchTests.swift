import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

/// A store knows its format (issue 15, bug 1): opening it with the other one is a clear
/// `.wrongFormat` error that changes nothing — never an empty view that accepts writes and then
/// keeps two copies of a record.
@Suite("File store format mismatch")
struct FileFormatMismatchTests {
    static let notes = (0..<21).map { FileNote(id: "n\($0)", text: "note \($0)", number: $0) }.sorted { $0.id < $1.id }

    @Test(arguments: [FileStorageContext.RecordFormat.json, .propertyList])
    func openingAStoreWithTheOtherFormatIsAWrongFormatErrorThatChangesNothing(
        _ written: FileStorageContext.RecordFormat
    ) throws {
        try FileTestDirectory.with { directory in
            try FileStorageContext(directory: directory.url, format: written).save(Self.notes)
            let before = try directory.snapshot()
            let other: FileStorageContext.RecordFormat = written == .json ? .propertyList : .json
            let error = try #require(throws: StorageError.self) {
                try FileStorageContext(directory: directory.url, format: other)
            }
            let ext = written.fileExtension
            let expected =
                written == .json
                ? "the store holds JSON records (21 .json files, such as ^file^note/\(try Self.firstFile(directory, ext))), not property-list ones; open it with format: .json"
                : "the store holds property-list records (21 .plist files, such as ^file^note/\(try Self.firstFile(directory, ext))), not JSON ones; open it with format: .propertyList"
            #expect(error.kind == .wrongFormat(expected))
            #expect(error.location == directory.path)
            #expect(error.description.hasPrefix("store: wrong record format (the store holds"))
            #expect(try directory.snapshot() == before)
            // The right format still reads every note.
            #expect(try FileStorageContext(directory: directory.url, format: written).notes() == Self.notes)
        }
    }

    @Test(arguments: [FileStorageContext.RecordFormat.json, .propertyList])
    func aStoreWithRecordsInBothFormatsOpensWithNeither(_ format: FileStorageContext.RecordFormat) throws {
        try FileTestDirectory.with { directory in
            let store = try FileStorageContext(directory: directory.url, format: .json)
            try store.save(Array(Self.notes.prefix(3)))
            // A property-list record beside them, as the wrong-format writes of earlier releases left.
            try FileTestDirectory.with { other in
                let plist = try FileStorageContext(directory: other.url, format: .propertyList)
                try plist.save([Self.notes[0]])
                try FileManager.default.copyItem(
                    at: plist.fileURL(for: FileNote.self, id: "n0"),
                    to: directory.url.appendingPathComponent("^file^note/n0.plist"))
            }
            let error = try #require(throws: StorageError.self) {
                try FileStorageContext(directory: directory.url, format: format)
            }
            let detail =
                format == .json
                ? "the store holds records in two formats (3 .json files and 1 .plist file, such as ^file^note/n0.plist), and a context reads only one; `dao verify` lists them"
                : "the store holds records in two formats (1 .plist file and 3 .json files, such as ^file^note/n0.json), and a context reads only one; `dao verify` lists them"
            #expect(error.kind == .wrongFormat(detail))
        }
    }

    @Test(arguments: [FileStorageContext.RecordFormat.json, .propertyList])
    func anEmptyStoreOpensWithEitherFormat(_ format: FileStorageContext.RecordFormat) throws {
        try FileTestDirectory.with { directory in
            try FileStorageContext(directory: directory.url, format: format == .json ? .propertyList : .json).deleteAll(
                FileNote.self)
            let context = try FileStorageContext(directory: directory.url, format: format)
            try context.save([Self.notes[0]])
            #expect(try context.notes() == [Self.notes[0]])
        }
    }

    private static func firstFile(_ directory: FileTestDirectory, _ ext: String) throws -> String {
        try FileManager.default.contentsOfDirectory(atPath: directory.path + "/^file^note").filter {
            $0.hasSuffix("." + ext)
        }.sorted().first ?? "?"
    }
}
