import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

@Suite("File corruption")
struct FileCorruptionTests {
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case truncated, empty, randomBytes, wrongFormatVersion, directory
        var testDescription: String { rawValue }

        /// Damages the record file at `url` and returns the detail the error must carry.
        func apply(to url: URL) throws -> String {
            switch self {
            case .truncated:
                let data = try Data(contentsOf: url)
                try data.prefix(data.count - 7).write(to: url)
                return "truncated or not valid JSON"
            case .empty:
                try Data().write(to: url)
                return "empty file"
            case .randomBytes:
                var generator = SystemRandomNumberGenerator()
                try Data((0..<97).map { _ in UInt8.random(in: 0...255, using: &generator) | 0x80 }).write(to: url)
                return "truncated or not valid JSON"
            case .wrongFormatVersion:
                let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
                try Data(text.replacingOccurrences(of: #""formatVersion":2"#, with: #""formatVersion":99"#).utf8).write(
                    to: url)
                return "format version 99 is not supported; this release reads versions 1 and 2"
            case .directory:
                try FileManager.default.removeItem(at: url)
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
                return "a directory is where the record file should be"
            }
        }
    }

    static let notes = (0..<4).map { FileNote(id: "n\($0)", text: "note \($0)", number: $0) }

    /// A store holding `notes`, with `n1` damaged.
    private func damagedStore(_ damage: Damage, in directory: FileTestDirectory) throws -> (
        FileStorageContext, URL, String
    ) {
        let context = try FileStorageContext(directory: directory.url)
        try context.save(Self.notes)
        let url = context.fileURL(for: FileNote.self, id: "n1")
        let detail = try damage.apply(to: url)
        return (try FileStorageContext(directory: directory.url), url, detail)
    }

    @Test("a damaged record is an error naming its file", arguments: Damage.allCases)
    func aDamagedRecordIsAnErrorNamingItsFile(_ damage: Damage) throws {
        try FileTestDirectory.with { directory in
            let (context, url, detail) = try damagedStore(damage, in: directory)
            let error = try #require(throws: StorageError.self) { try context.fetch(FileNote.self, id: "n1") }
            #expect(error.kind == .corruptRecord(detail))
            #expect(error.location == url.path)
            #expect(error.key == "n1")
            #expect(error.description.contains(url.path))
        }
    }

    @Test("every other record still reads", arguments: Damage.allCases)
    func everyOtherRecordStillReads(_ damage: Damage) throws {
        try FileTestDirectory.with { directory in
            let (context, _, _) = try damagedStore(damage, in: directory)
            for note in Self.notes where note.id != "n1" {
                #expect(try context.fetch(FileNote.self, id: note.id) == note)
            }
            #expect(try context.count(FileNote.self) == Self.notes.count)
        }
    }

    @Test("fetchAll throws naming the bad file", arguments: Damage.allCases)
    func fetchAllThrowsNamingTheBadFile(_ damage: Damage) throws {
        try FileTestDirectory.with { directory in
            let (context, url, detail) = try damagedStore(damage, in: directory)
            let error = try #require(throws: StorageError.self) { try context.fetchAll(FileNote.self) }
            #expect(error.kind == .corruptRecord(detail))
            #expect(error.location == url.path)
        }
    }

    @Test func fetchAllNamesEveryBadFileWhenSeveralAreDamaged() throws {
        try FileTestDirectory.with { directory in
            let (context, first, _) = try damagedStore(.empty, in: directory)
            let second = context.fileURL(for: FileNote.self, id: "n3")
            _ = try Damage.randomBytes.apply(to: second)
            let error = try #require(throws: StorageError.self) { try context.fetchAll(FileNote.self) }
            guard error.code == .corruptRecord, let detail = error.kind.detail else {
                Issue.record("expected a corrupt-record error, got \(error)")
                return
            }
            #expect(detail == "2 records cannot be read")
            let failures = try #require(error.underlyingError as? RecordFailures).failures
            #expect(failures.map(\.location) == [first.path, second.path])
            #expect(
                failures.map(\.kind) == [.corruptRecord("empty file"), .corruptRecord("truncated or not valid JSON")])
            // One short line per record under the summary.
            #expect(
                error.description.split(separator: "\n") == [
                    "FileNote: 2 records cannot be read at \(directory.path)/^file^note:",
                    #"  "n1" at \#(first.path): corrupt record (empty file)"#,
                    #"  "n3" at \#(second.path): corrupt record (truncated or not valid JSON)"#,
                ])
        }
    }

    @Test(
        "saving over a damaged record replaces it",
        arguments: [Damage.truncated, .empty, .randomBytes, .wrongFormatVersion])
    func savingOverADamagedRecordReplacesIt(_ damage: Damage) throws {
        try FileTestDirectory.with { directory in
            let (context, _, _) = try damagedStore(damage, in: directory)
            try context.save([FileNote(id: "n1", text: "fixed")])
            #expect(try context.fetch(FileNote.self, id: "n1")?.text == "fixed")
            #expect(try context.notes().count == Self.notes.count)
        }
    }

    @Test("a directory in the way of a write fails it and writes nothing", arguments: [1, 3])
    func aDirectoryInTheWayOfAWriteFailsItAndWritesNothing(_ batchSize: Int) throws {
        try FileTestDirectory.with { directory in
            let (context, url, _) = try damagedStore(.directory, in: directory)
            let batch =
                [FileNote(id: "n1", text: "new")] + (0..<(batchSize - 1)).map { FileNote(id: "extra\($0)", text: "x") }
            let error = try #require(throws: StorageError.self) { try context.save(batch) }
            #expect(error.kind == .corruptRecord("a directory is where the record file should be"))
            #expect(error.location == url.path)
            #expect(try context.fetch(FileNote.self, id: "n0") == Self.notes[0])
            #expect(try context.fetch(FileNote.self, id: "extra0") == nil)
        }
    }

    @Test func aRecordFileHoldingAnotherKeyIsCorrupt() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "a"), FileNote(id: "b", text: "b")])
            let a = context.fileURL(for: FileNote.self, id: "a")
            try FileManager.default.removeItem(at: a)
            try FileManager.default.copyItem(at: context.fileURL(for: FileNote.self, id: "b"), to: a)
            let error = try #require(throws: StorageError.self) { try context.fetch(FileNote.self, id: "a") }
            #expect(error.kind == .corruptRecord(#"the file holds the record of key "b""#))
            let listing = try #require(throws: StorageError.self) { try context.fetchAll(FileNote.self) }
            #expect(listing.kind == .corruptRecord(#"the file name does not match the key inside, "b""#))
            #expect(listing.location == a.path)
        }
    }

    @Test func aRecordOfAnotherShapeIsADecodingFailureNamingTheFile() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileTag(id: "t", label: "tag")])
            let tagDirectory = context.fileURL(for: FileTag.self, id: "t").deletingLastPathComponent()
            let noteDirectory = context.fileURL(for: FileNote.self, id: "t").deletingLastPathComponent()
            try FileManager.default.copyItem(at: tagDirectory, to: noteDirectory)
            let error = try #require(throws: StorageError.self) { try context.fetch(FileNote.self, id: "t") }
            #expect(error.kind == .decodingFailed)
            #expect(error.location == context.fileURL(for: FileNote.self, id: "t").path)
        }
    }
}
