import DAOKitStoreFormat
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes the Nth file-system call of a write fail, for N = 1, 2, … until the write succeeds, and
/// checks after every failure that the store holds exactly its old state — in the same context and
/// after reopening. Then the same with a simulated crash after the Nth call.
@Suite("File fault injection")
struct FileFaultInjectionTests {
    static let oldState = (0..<4).map { FileNote(id: "n\($0)", text: "old \($0)", number: $0) }

    enum Write: String, CaseIterable, CustomTestStringConvertible {
        case batchSave, batchDelete, deleteAll, singleInsert, singleOverwrite, singleDelete
        var testDescription: String { rawValue }

        func run(on context: FileStorageContext) throws {
            switch self {
            case .batchSave:
                try context.save([
                    FileNote(id: "n0", text: "new 0"), FileNote(id: "n2", text: "new 2"),
                    FileNote(id: "added", text: "added"), FileNote(id: "added too", text: "added"),
                ])
            case .batchDelete: try context.delete(FileNote.self, ids: ["n0", "n2", "ghost"])
            case .deleteAll: try context.deleteAll(FileNote.self)
            case .singleInsert: try context.save([FileNote(id: "added", text: "added")])
            case .singleOverwrite: try context.save([FileNote(id: "n1", text: "new 1")])
            case .singleDelete: try context.delete(FileNote.self, ids: ["n3"])
            }
        }

        /// At least how many calls the write makes before it can succeed (so the loop is known to
        /// have failed each step: locking, reading the old records, the journal, the rewrite, the
        /// flush and the commit).
        var minimumFailingCalls: Int {
            switch self {
            case .batchSave: return 30
            case .batchDelete: return 20
            case .deleteAll: return 5
            case .singleInsert: return 10
            case .singleOverwrite: return 12
            case .singleDelete: return 8
            }
        }

        /// The state after the write succeeds.
        var newState: [FileNote] {
            var notes = Dictionary(uniqueKeysWithValues: FileFaultInjectionTests.oldState.map { ($0.id, $0) })
            switch self {
            case .batchSave:
                for note in [
                    FileNote(id: "n0", text: "new 0"), FileNote(id: "n2", text: "new 2"),
                    FileNote(id: "added", text: "added"), FileNote(id: "added too", text: "added"),
                ] {
                    notes[note.id] = note
                }
            case .batchDelete:
                notes["n0"] = nil
                notes["n2"] = nil
            case .deleteAll: notes = [:]
            case .singleInsert: notes["added"] = FileNote(id: "added", text: "added")
            case .singleOverwrite: notes["n1"] = FileNote(id: "n1", text: "new 1")
            case .singleDelete: notes["n3"] = nil
            }
            return notes.values.sorted { $0.id < $1.id }
        }
    }

    private static func makeOldStore(_ directory: FileTestDirectory) throws {
        try FileStorageContext(directory: directory.url).save(oldState)
    }

    /// After recovery, nothing of a failed write lingers: no temporary files, no pending journal.
    private static func expectNoLeftovers(_ directory: FileTestDirectory) {
        let names = fileTreeNames(directory.path)
        #expect(!names.contains { $0.contains(".tmp-") || $0.contains(".trash-") }, "\(names)")
        let journal =
            (try? FileManager.default.attributesOfItem(atPath: directory.path + "/.journal")[.size] as? Int) ?? 0
        #expect(journal == 0)
    }

    @Test("a failing call leaves the old state", arguments: Write.allCases, [ENOSPC, EACCES, EIO])
    func aFailingCallLeavesTheOldState(_ write: Write, _ code: Int32) throws {
        try FileTestDirectory.with { directory in
            try Self.makeOldStore(directory)
            let fileSystem = FaultInjectingFileSystem()
            let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            let message = String(cString: strerror(code))
            var failures = 0
            for call in 1...400 {
                fileSystem.arm(.fail(operation: call, code: code))
                do {
                    try write.run(on: context)
                    fileSystem.arm(.passThrough)
                    #expect(try context.notes() == write.newState)
                    break
                } catch let error as StorageError {
                    fileSystem.arm(.passThrough)
                    failures += 1
                    guard error.code == .io, let detail = error.kind.detail else {
                        Issue.record("call \(call): expected an I/O error, got \(error)")
                        break
                    }
                    #expect(detail.hasSuffix(message), "call \(call): \(error)")
                    // The cause as a value a program can act on: a full disk is not a denied permission.
                    #expect(error.posixErrorCode?.rawValue == code, "call \(call): \(error)")
                    #expect(error.location?.hasPrefix(directory.path) == true, "call \(call): \(error)")
                    #expect(error.entityName == "FileNote")
                    #expect(try context.notes() == Self.oldState, "call \(call) failed: \(error)")
                    #expect(
                        try FileStorageContext(directory: directory.url).notes() == Self.oldState,
                        "call \(call), reopened")
                    Self.expectNoLeftovers(directory)
                }
            }
            // Every write makes several calls before it can succeed; each of them was made to fail.
            #expect(failures >= write.minimumFailingCalls, "only \(failures) calls failed")
            #expect(try FileStorageContext(directory: directory.url).notes() == write.newState)
        }
    }

    @Test("a crash after any call recovers a whole state", arguments: Write.allCases)
    func aCrashAfterAnyCallRecoversAWholeState(_ write: Write) throws {
        var crashes = 0
        for call in 0...400 {
            let finished = try FileTestDirectory.with { directory -> Bool in
                try Self.makeOldStore(directory)
                // A second context opened earlier, as another process would be, must see a whole
                // state too; so must the crashed context itself once its file system works again.
                // Whichever reads first finds the journal and rolls it back.
                let bystander = try FileStorageContext(directory: directory.url)
                let fileSystem = FaultInjectingFileSystem()
                let crashed = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
                fileSystem.arm(.crash(after: call))
                var finished = true
                do { try write.run(on: crashed) } catch is StorageError { finished = false }
                finished = finished && fileSystem.failureCount == 0
                fileSystem.arm(.passThrough)
                let readers = call % 2 == 0 ? [crashed, bystander] : [bystander, crashed]
                let seen = try readers[0].notes()
                if finished {
                    #expect(seen == write.newState)
                } else {
                    #expect(seen == Self.oldState || seen == write.newState, "crash after call \(call): \(seen)")
                }
                #expect(try readers[1].notes() == seen, "crash after call \(call), other reader")
                #expect(
                    try FileStorageContext(directory: directory.url).notes() == seen,
                    "crash after call \(call), reopened")
                Self.expectNoLeftovers(directory)
                return finished
            }
            if finished { break }
            crashes += 1
        }
        #expect(crashes >= write.minimumFailingCalls, "only \(crashes) crash points")
    }
}
