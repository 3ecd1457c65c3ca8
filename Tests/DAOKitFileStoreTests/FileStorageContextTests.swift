import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

@Suite("FileStorageContext")
struct FileStorageContextTests {
    @Test func savedEntitiesReadBackAfterReopening() throws {
        try FileTestDirectory.with { directory in
            let notes = (0..<5).map { FileNote(id: "n\($0)", text: "text \($0)", number: $0) }
            try FileStorageContext(directory: directory.url).save(notes)
            let reopened = try FileStorageContext(directory: directory.url)
            #expect(try reopened.notes() == notes)
            #expect(try reopened.fetch(FileNote.self, id: "n3") == notes[3])
            #expect(try reopened.fetch(FileNote.self, id: "missing") == nil)
            #expect(try reopened.count(FileNote.self) == 5)
        }
    }

    @Test func recordsLiveInOneFilePerKeyUnderTheEntityDirectory() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "Hello World", text: "t")])
            let expected = directory.path + "/^file^note/^hello%20^world.json"
            #expect(context.fileURL(for: FileNote.self, id: "Hello World").path == expected)
            let data = try Data(contentsOf: URL(fileURLWithPath: expected))
            #expect(
                String(decoding: data, as: UTF8.self)
                    == #"{"checksum":"44c2afb6","entity":{"id":"Hello World","number":0,"text":"t"},"formatVersion":2,"key":"Hello World"}"#
            )
            #expect(
                fileTreeNames(directory.path) == [".changes", ".lock", "^file^note", "^file^note/^hello%20^world.json"])
        }
    }

    @Test func replacingAndDeletingChangeOnlyTheirRecords() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "1"), FileNote(id: "b", text: "2"), FileNote(id: "c", text: "3")])
            try context.save([FileNote(id: "b", text: "two")])
            try context.delete(FileNote.self, ids: ["a", "unknown"])
            #expect(try context.notes() == [FileNote(id: "b", text: "two"), FileNote(id: "c", text: "3")])
            try context.delete(FileNote.self, ids: ["c"])
            try context.delete(FileNote.self, ids: ["nothing", "here"])
            #expect(try context.notes() == [FileNote(id: "b", text: "two")])
        }
    }

    @Test func deleteAllRemovesOnlyThatEntityType() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "1", text: "note")])
            try context.save([FileTag(id: "1", label: "tag")])
            try context.deleteAll(FileNote.self)
            try context.deleteAll(FileNote.self)
            #expect(try context.count(FileNote.self) == 0)
            #expect(try context.fetch(FileTag.self, id: "1") == FileTag(id: "1", label: "tag"))
            #expect(!fileTreeNames(directory.path).contains { $0.hasPrefix(".trash") })
        }
    }

    @Test func aBatchWithARepeatedIDKeepsTheLastEntity() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([
                FileNote(id: "x", text: "first"), FileNote(id: "y", text: "y"), FileNote(id: "x", text: "last"),
            ])
            #expect(try context.notes() == [FileNote(id: "x", text: "last"), FileNote(id: "y", text: "y")])
        }
    }

    @Test func noIDCanPlaceAFileOutsideTheDirectory() throws {
        try FileTestDirectory.with { directory in
            // The store sits three levels down, so an escape of up to three levels would show.
            let store = directory.url.appendingPathComponent("a/b/store")
            let context = try FileStorageContext(directory: store)
            let ids = [
                "..", ".", "/", "../escape", "../../../escape", "/etc/passwd", "a/../../b", "\0", "",
                String(repeating: "é", count: 500), ".journal", ".lock", ".tmp-1", "~", "*",
            ]
            let notes = ids.map { FileNote(id: $0, text: "id \($0.debugDescription)") }
            try context.save(notes)
            try context.save([FileNote(id: "../../single", text: "single")])
            #expect(Set(try context.notes()) == Set(notes + [FileNote(id: "../../single", text: "single")]))
            for note in notes { #expect(try context.fetch(FileNote.self, id: note.id) == note) }
            let files = fileTreeNames(store.path).filter { $0.hasPrefix("^file^note/") }
            #expect(files.count == ids.count + 1)
            #expect(files.allSatisfy { !$0.dropFirst("^file^note/".count).contains("/") })
            #expect(
                fileTreeNames(directory.path).allSatisfy {
                    ["a", "a/b", "a/b/store"].contains($0) || $0.hasPrefix("a/b/store/")
                })
        }
    }

    @Test func equalIDsOfTwoEntityTypesStayApart() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "same", text: "note")])
            try context.save([FileTag(id: "same", label: "tag")])
            #expect(try context.fetch(FileNote.self, id: "same")?.text == "note")
            #expect(try context.fetch(FileTag.self, id: "same")?.label == "tag")
        }
    }

    @Test func propertyListStoresRoundTripInPlistFiles() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url, format: .propertyList)
            let notes = [FileNote(id: "a", text: "α", number: 1), FileNote(id: "B", text: "b", number: 2)]
            try context.save(notes)
            #expect(
                try FileStorageContext(directory: directory.url, format: .propertyList).notes()
                    == notes.sorted { $0.id < $1.id })
            let data = try Data(contentsOf: context.fileURL(for: FileNote.self, id: "a"))
            #expect(context.fileURL(for: FileNote.self, id: "a").pathExtension == "plist")
            #expect(data.starts(with: Array("bplist00".utf8)))
        }
    }

    @Test func aDirectoryThatCannotBeCreatedIsAnIOErrorNamingThePath() throws {
        try FileTestDirectory.with { directory in
            try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
            let file = directory.url.appendingPathComponent("plain-file")
            try Data("x".utf8).write(to: file)
            let error = try #require(throws: StorageError.self) {
                _ = try FileStorageContext(directory: file.appendingPathComponent("store"))
            }
            #expect(error.kind == .io("mkdir failed: Not a directory"))
            #expect(error.location == file.appendingPathComponent("store").path)
        }
    }

    @Test func missingParentDirectoriesAreCreated() throws {
        try FileTestDirectory.with { directory in
            let nested = directory.url.appendingPathComponent("a/b/c")
            try FileStorageContext(directory: nested).save([FileNote(id: "n", text: "t")])
            #expect(try FileStorageContext(directory: nested).count(FileNote.self) == 1)
        }
    }

    @Test func insertModeRejectsAStoredIDAndWritesNothing() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "old")])
            let error = try #require(throws: StorageError.self) {
                try context.save([FileNote(id: "new", text: "n"), FileNote(id: "a", text: "new")], mode: .insert)
            }
            #expect(error.kind == .duplicateID)
            #expect(error.key == "a")
            #expect(try context.notes() == [FileNote(id: "a", text: "old")])
            try context.save([FileNote(id: "b", text: "b")], mode: .insert)
            #expect(try context.count(FileNote.self) == 2)
        }
    }

    @Test func updateModeRejectsAMissingIDAndWritesNothing() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "old")])
            let error = try #require(throws: StorageError.self) {
                try context.save([FileNote(id: "a", text: "new"), FileNote(id: "ghost", text: "g")], mode: .update)
            }
            #expect(error.kind == .missingID)
            #expect(error.key == "ghost")
            #expect(try context.notes() == [FileNote(id: "a", text: "old")])
            try context.save([FileNote(id: "a", text: "new")], mode: .update)
            #expect(try context.fetch(FileNote.self, id: "a")?.text == "new")
        }
    }

    @Test func anEntityThatCannotBeEncodedWritesNothing() throws {
        struct Unencodable: Storable {
            var id: String
            func encode(to encoder: any Encoder) throws {
                throw EncodingError.invalidValue(id, .init(codingPath: [], debugDescription: "refused"))
            }
            init(id: String) { self.id = id }
            init(from decoder: any Decoder) throws { id = "" }
        }
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            let error = try #require(throws: StorageError.self) { try context.save([Unencodable(id: "bad")]) }
            #expect(error.kind == .encodingFailed)
            #expect(error.key == "bad")
            #expect(try context.count(Unencodable.self) == 0)
        }
    }

    @Test func concurrentWritersFromManyThreadsLoseNothing() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            let failures = LockedCounter()
            DispatchQueue.concurrentPerform(iterations: 8) { writer in
                for index in 0..<25 {
                    do {
                        if index % 5 == 0 {
                            try context.save([
                                FileNote(id: "w\(writer)-\(index)", text: "b"),
                                FileNote(id: "w\(writer)-\(index)b", text: "b"),
                            ])
                        } else {
                            try context.save([FileNote(id: "w\(writer)-\(index)", text: "s")])
                        }
                        _ = try context.fetchAll(FileNote.self)
                    } catch {
                        failures.increment()
                    }
                }
            }
            #expect(failures.value == 0)
            #expect(try context.count(FileNote.self) == 8 * 30)
            #expect(try FileStorageContext(directory: directory.url).notes().count == 8 * 30)
        }
    }

    @Test func aDirectoryRemovedUnderneathIsAnIOErrorNamingThePath() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "a")])
            try FileManager.default.removeItem(at: directory.url)
            let error = try #require(throws: StorageError.self) { try context.save([FileNote(id: "b", text: "b")]) }
            guard error.code == .io, let message = error.kind.detail else {
                Issue.record("expected an I/O error, got \(error)")
                return
            }
            #expect(message.hasSuffix("No such file or directory"))
            #expect(error.location?.hasPrefix(directory.path) == true)
            #expect(try context.fetch(FileNote.self, id: "a") == nil)
            #expect(try context.fetchAll(FileNote.self).isEmpty)
        }
    }
}

/// A thread-safe counter for the concurrency tests.
final class LockedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
