import DAOKit
import DAOKitFileStore
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

/// FileStorageContext's `fetchReadable`, `storedKeys` and `delete(_:storageKeys:)` on files that
/// are damaged, out of place or under hashed names.
@Suite("File salvage")
struct FileSalvageTests {
    let notes = (1...3).map { FixtureNoteEntity(id: "\($0)", body: "note \($0)") }

    private func withStore(_ body: (FileStorageContext, FileTestDirectory) throws -> Void) throws {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        let context = try FileStorageContext(directory: directory.url)
        try context.save(notes)
        try body(context, directory)
    }

    @Test func aTruncatedFileIsAFailureNamingItsKeyAndPathWhileTheOthersRead() throws {
        try withStore { context, _ in
            let url = context.fileURL(for: FixtureNoteEntity.self, id: "2")
            try Data("{\"formatVers".utf8).write(to: url)
            let found = try context.fetchReadable(FixtureNoteEntity.self)
            #expect(found.values.sorted { $0.id < $1.id } == [notes[0], notes[2]])
            let failure = try #require(found.failures.first)
            #expect(found.failures.count == 1)
            #expect(failure.storageKey == "2")
            #expect(failure.error.location == url.path)
            guard case .corruptRecord = failure.error.kind else {
                Issue.record("expected a corrupt record, got \(failure.error.kind)")
                return
            }
            #expect(Set(try context.storedKeys(FixtureNoteEntity.self)) == ["1", "2", "3"])
        }
    }

    @Test func aDirectoryInARecordsPlaceIsAFailureThatDeleteByKeyRefusesToRemove() throws {
        try withStore { context, _ in
            let url = context.fileURL(for: FixtureNoteEntity.self, id: "4")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            let found = try context.fetchReadable(FixtureNoteEntity.self)
            #expect(found.values.count == 3)
            #expect(found.failures.map(\.storageKey) == ["4"])
            #expect(
                found.failures.first?.error.kind == .corruptRecord("a directory is where the record file should be"))
            // The store never removes what it did not write: the directory is for a person to remove.
            let error = try #require(throws: StorageError.self) {
                try context.delete(FixtureNoteEntity.self, storageKeys: ["4"])
            }
            #expect(error.kind == .corruptRecord("a directory is where the record file should be"))
            #expect(FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test func aRecordUnderAHashedNameIsListedAndDeletedByItsKey() throws {
        try withStore { context, _ in
            // Too long for a file name: stored under a hash, the key only inside the record.
            let longID = String(repeating: "long-id-", count: 60)
            try context.save([FixtureNoteEntity(id: longID, body: "hashed")])
            #expect(Set(try context.storedKeys(FixtureNoteEntity.self)) == ["1", "2", "3", longID])
            let bad = context.fileURL(for: FixtureNoteEntity.self, id: longID)
            let text = try String(contentsOf: bad, encoding: .utf8).replacingOccurrences(of: "\"hashed\"", with: "42")
            try Data(text.utf8).write(to: bad)
            let found = try context.fetchReadable(FixtureNoteEntity.self)
            #expect(found.values.count == 3)
            #expect(found.failures.map(\.storageKey) == [longID])
            #expect(found.failures.first?.error.kind == .decodingFailed)
            try context.delete(FixtureNoteEntity.self, storageKeys: [longID])
            #expect(try context.fetchAll(FixtureNoteEntity.self).count == 3)
            #expect(!FileManager.default.fileExists(atPath: bad.path))
        }
    }

    @Test func aHashedNameWithADamagedEnvelopeIsAFailureWithoutAKeyAndIsNotListed() throws {
        try withStore { context, _ in
            let longID = String(repeating: "long-id-", count: 60)
            try context.save([FixtureNoteEntity(id: longID, body: "hashed")])
            let bad = context.fileURL(for: FixtureNoteEntity.self, id: longID)
            try Data("garbage".utf8).write(to: bad)
            let found = try context.fetchReadable(FixtureNoteEntity.self)
            #expect(found.values.count == 3)
            #expect(found.failures.count == 1)
            #expect(found.failures.first?.storageKey == nil)
            #expect(found.failures.first?.error.location == bad.path)
            #expect(Set(try context.storedKeys(FixtureNoteEntity.self)) == ["1", "2", "3"])
        }
    }

    @Test func deleteByStorageKeysOfUnknownKeysChangesNothing() throws {
        try withStore { context, directory in
            let before = try directory.snapshot()
            try context.delete(FixtureNoteEntity.self, storageKeys: ["4", "", "../1"])
            #expect(try directory.snapshot() == before)
            #expect(try context.count(FixtureNoteEntity.self) == 3)
        }
    }
}
