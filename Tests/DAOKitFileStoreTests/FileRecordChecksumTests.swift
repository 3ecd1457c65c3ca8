import DAOKit
import DAOKitStoreFormat
import DAOKitTestSupport
import Foundation
import Testing

@_spi(DAOKitBenchmarks) @testable import DAOKitFileStore

/// A record whose bytes changed but still parse — a digit, a letter — is a `corruptRecord`
/// naming its file on every read, never the changed value; the same store's sound records read.
/// JSON records and binary property lists alike.
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

    // MARK: Property lists

    /// Replaces the first occurrence of `old` in `data` with `new` (of the same length).
    private func replacing(_ old: String, with new: String, in data: Data) throws -> Data {
        let range = try #require(data.range(of: Data(old.utf8)))
        var out = data
        out.replaceSubrange(range, with: Data(new.utf8))
        return out
    }

    private func withPropertyListStore(
        _ body: (FileStorageContext, URL, Data) throws -> Void
    ) throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url, format: .propertyList)
            try context.save([
                FileNote(id: "a", text: "alpha", number: 1234), FileNote(id: "b", text: "beta", number: 5),
            ])
            let file = context.fileURL(for: FileNote.self, id: "a")
            try body(context, file, try Data(contentsOf: file))
        }
    }

    /// The record "a" replaced by `bytes` is reported by every read, and "b" still reads.
    @discardableResult
    private func expectReported(
        _ bytes: Data, _ context: FileStorageContext, _ file: URL, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> StorageError? {
        try bytes.write(to: file)
        let error = #expect(throws: StorageError.self, sourceLocation: sourceLocation) {
            try context.fetch(FileNote.self, id: "a")
        }
        #expect(error?.location == file.path, sourceLocation: sourceLocation)
        let readable = try context.fetchReadable(FileNote.self)
        #expect(readable.values == [FileNote(id: "b", text: "beta", number: 5)], sourceLocation: sourceLocation)
        #expect(readable.failures.count == 1, sourceLocation: sourceLocation)
        return error
    }

    @Test func propertyListRecordsCarryTheirChecksumInTheTrailerAndStayPropertyLists() throws {
        try withPropertyListStore { context, _, data in
            #expect(data.starts(with: Array("bplist00".utf8)))
            #expect(data[data.count - 32] == UInt8(ascii: "D"))
            #expect(RecordEnvelope.propertyListSeal(of: data) == .intact(bodyStart: 0))
            // Any property-list reader still reads it.
            let plist = try #require(
                try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
            #expect(plist["formatVersion"] as? Int == 2)
            #expect((plist["entity"] as? [String: Any])?["text"] as? String == "alpha")
            #expect(try context.fetch(FileNote.self, id: "a")?.number == 1234)
        }
    }

    @Test func aChangedLetterInAPropertyListIsReportedOnEveryRead() throws {
        try withPropertyListStore { context, file, data in
            let error = try expectReported(try replacing("alpha", with: "alphb", in: data), context, file)
            #expect(error?.kind == .corruptRecord(RecordEnvelope.checksumMismatch))
            #expect(error?.key == "a")
            try context.save([FileNote(id: "a", text: "alpha", number: 1234)])
            #expect(try context.fetch(FileNote.self, id: "a")?.text == "alpha")
        }
    }

    @Test func everyFlippedBitOfAPropertyListIsReportedNeverRead() throws {
        try withPropertyListStore { context, file, data in
            for position in 0..<data.count {
                for bit in 0..<8 {
                    var damaged = data
                    damaged[position] ^= UInt8(1) << UInt8(bit)
                    try damaged.write(to: file)
                    do {
                        let value = try context.fetch(FileNote.self, id: "a")
                        Issue.record("byte \(position) bit \(bit): read \(String(describing: value))")
                    } catch is StorageError {}
                }
            }
        }
    }

    @Test func aTruncatedPropertyListIsReported() throws {
        try withPropertyListStore { context, file, data in
            for length in [0, 8, data.count / 2, data.count - 33, data.count - 32, data.count - 1] {
                let error = try expectReported(data.prefix(length), context, file)
                guard case .corruptRecord? = error?.kind else {
                    Issue.record("truncated to \(length): \(String(describing: error))")
                    continue
                }
            }
        }
    }

    @Test func aDamagedPropertyListChecksumIsReported() throws {
        try withPropertyListStore { context, file, data in
            var checksum = data
            checksum[data.count - 30] ^= 0x10
            #expect(
                try expectReported(checksum, context, file)?.kind == .corruptRecord(RecordEnvelope.checksumMismatch))
            // The seal's marker gone: a version 2 record without its checksum.
            var marker = data
            for position in (data.count - 32)..<(data.count - 27) { marker[position] = 0 }
            guard case .corruptRecord? = try expectReported(marker, context, file)?.kind else {
                Issue.record("a record without its seal was not reported as corrupt")
                return
            }
        }
    }

    @Test func aPropertyListOfAnEarlierReleaseReadsUncheckedAndIsSealedByItsNextWrite() throws {
        struct Envelope: Encodable {
            let formatVersion = 1
            let key = "a"
            let entity = FileNote(id: "a", text: "old", number: 3)
        }
        try withPropertyListStore { context, file, _ in
            let encoder = PropertyListEncoder()
            encoder.outputFormat = .binary
            let old = try encoder.encode(Envelope())
            #expect(RecordEnvelope.propertyListSeal(of: old) == .none)
            try old.write(to: file)
            #expect(try context.fetch(FileNote.self, id: "a") == FileNote(id: "a", text: "old", number: 3))
            try context.save([FileNote(id: "a", text: "new", number: 3)])
            #expect(RecordEnvelope.propertyListSeal(of: try Data(contentsOf: file)) == .intact(bodyStart: 0))
        }
    }

    /// The benchmarks' "without checksums" side: records as releases before checksums wrote them
    /// (format version 1, no seal), in both formats, which every context reads unchecked.
    @Test(arguments: [FileStorageContext.RecordFormat.json, .propertyList])
    func aStoreOpenedForBenchmarksWithoutChecksumsWritesVersionOneRecords(
        _ format: FileStorageContext.RecordFormat
    ) throws {
        try FileTestDirectory.with { directory in
            let unchecked = try FileStorageContext(directory: directory.url, format: format, writingChecksums: false)
            let note = FileNote(id: "a", text: "alpha", number: 1234)
            try unchecked.save([note])
            let bytes = try Data(contentsOf: unchecked.fileURL(for: FileNote.self, id: "a"))
            let seal =
                format == .json ? RecordEnvelope.seal(of: bytes) : RecordEnvelope.propertyListSeal(of: bytes)
            #expect(seal == .none)
            #expect(
                try FileStorageContext(directory: directory.url, format: format).fetch(FileNote.self, id: "a") == note)
            // The same store through a context of its own: sealed again at the next write.
            let checked = try FileStorageContext(directory: directory.url, format: format, writingChecksums: true)
            try checked.save([note])
            let sealed = try Data(contentsOf: checked.fileURL(for: FileNote.self, id: "a"))
            #expect(
                (format == .json ? RecordEnvelope.seal(of: sealed) : RecordEnvelope.propertyListSeal(of: sealed))
                    != .none)
        }
    }
}
