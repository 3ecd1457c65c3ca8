import DAOKit
import DAOKitStoreFormat
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKitFileStore

/// A JSON record whose bytes changed but still parse — a digit, a letter — is a `corruptRecord`
/// naming its file on every read, never the changed value; the same store's sound records read.
@Suite("File record checksums")
struct FileRecordChecksumTests {
    @Test func aChangedDigitIsReportedOnEveryRead() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([
                FileNote(id: "a", text: "alpha", number: 1234), FileNote(id: "b", text: "beta", number: 5),
            ])
            let file = context.fileURL(for: FileNote.self, id: "a")
            let text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
            try Data(text.replacingOccurrences(of: "1234", with: "1235").utf8).write(to: file)
            let error = try #require(throws: StorageError.self) { try context.fetch(FileNote.self, id: "a") }
            #expect(error.kind == .corruptRecord(RecordEnvelope.checksumMismatch))
            #expect(error.location == file.path)
            #expect(error.key == "a")
            #expect(throws: StorageError.self) { try context.fetchAll(FileNote.self) }
            let readable = try context.fetchReadable(FileNote.self)
            #expect(readable.values == [FileNote(id: "b", text: "beta", number: 5)])
            #expect(readable.failures.map(\.storageKey) == ["a"])
            #expect(try context.fetch(FileNote.self, id: "b")?.number == 5)
            // A rewrite seals the record again.
            try context.save([FileNote(id: "a", text: "alpha", number: 1234)])
            #expect(try context.fetch(FileNote.self, id: "a")?.number == 1234)
        }
    }

    @Test func aRecordOfAnEarlierReleaseReadsUncheckedAndIsSealedByItsNextWrite() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "alpha")])
            let file = context.fileURL(for: FileNote.self, id: "a")
            try Data(#"{"entity":{"id":"a","number":3,"text":"old"},"formatVersion":1,"key":"a"}"#.utf8).write(to: file)
            #expect(try context.fetch(FileNote.self, id: "a") == FileNote(id: "a", text: "old", number: 3))
            try context.save([FileNote(id: "a", text: "new", number: 3)])
            #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self).hasPrefix(#"{"checksum":""#))
        }
    }
}
