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

/// `FileStorageContext.reset()` is all or nothing: the Nth file-system call fails, for every N
/// until it succeeds, or the process "crashes" after the Nth call; every reader — the context
/// itself, another context opened before, one opened after — then sees every record of every type
/// or none, never some types without others.
@Suite("File reset fault injection")
struct FileResetFaultInjectionTests {
    struct State: Equatable, CustomStringConvertible {
        var notes: [FileNote]
        var tags: [FileTag]
        var description: String { "\(notes.count) notes, \(tags.count) tags" }
    }

    static let old = State(
        notes: (0..<4).map { FileNote(id: "n\($0)", text: "old \($0)", number: $0) },
        tags: (0..<2).map { FileTag(id: "t\($0)", label: "tag \($0)") })
    static let empty = State(notes: [], tags: [])

    static func makeOldStore(_ directory: FileTestDirectory) throws {
        let context = try FileStorageContext(directory: directory.url)
        try context.save(old.notes)
        try context.save(old.tags)
    }

    static func state(of context: FileStorageContext) throws -> State {
        State(
            notes: try context.fetchAll(FileNote.self).sorted { $0.id < $1.id },
            tags: try context.fetchAll(FileTag.self).sorted { $0.id < $1.id })
    }

    static func expectNoLeftovers(_ directory: FileTestDirectory) {
        let names = fileTreeNames(directory.path)
        #expect(!names.contains { $0.contains(".trash-") || $0.contains(".tmp-") }, "\(names)")
        let journal =
            (try? FileManager.default.attributesOfItem(atPath: directory.path + "/.journal")[.size] as? Int) ?? 0
        #expect(journal == 0)
    }

    @Test("a failing call leaves every record or none", arguments: [ENOSPC, EACCES, EIO])
    func aFailingCallLeavesEveryRecordOrNone(_ code: Int32) throws {
        try FileTestDirectory.with { directory in
            try Self.makeOldStore(directory)
            let fileSystem = FaultInjectingFileSystem()
            let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            var failures = 0
            var succeeded = false
            for call in 1...200 {
                fileSystem.arm(.fail(operation: call, code: code))
                do {
                    try context.reset()
                    fileSystem.arm(.passThrough)
                    succeeded = true
                    #expect(try Self.state(of: context) == Self.empty)
                    break
                } catch let error as StorageError {
                    fileSystem.arm(.passThrough)
                    failures += 1
                    guard case .io = error.kind else {
                        Issue.record("call \(call): expected an I/O error, got \(error)")
                        break
                    }
                    let seen = try Self.state(of: context)
                    #expect(seen == Self.old, "call \(call) failed (\(error)) and left \(seen)")
                    #expect(
                        try Self.state(of: FileStorageContext(directory: directory.url)) == seen,
                        "call \(call), reopened")
                    Self.expectNoLeftovers(directory)
                }
            }
            #expect(succeeded)
            // Listing, logging, the intent, each rename and the syncs: each was made to fail.
            #expect(failures >= 8, "only \(failures) calls failed")
            #expect(try Self.state(of: FileStorageContext(directory: directory.url)) == Self.empty)
        }
    }

    @Test("a crash after any call recovers every record or none")
    func aCrashAfterAnyCallRecoversEveryRecordOrNone() throws {
        var crashes = 0
        var sawEmptyAfterACrash = false
        for call in 0...200 {
            let finished = try FileTestDirectory.with { directory -> Bool in
                try Self.makeOldStore(directory)
                let bystander = try FileStorageContext(directory: directory.url)
                let fileSystem = FaultInjectingFileSystem()
                let crashed = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
                fileSystem.arm(.crash(after: call))
                var finished = true
                do { try crashed.reset() } catch is StorageError { finished = false }
                finished = finished && fileSystem.failureCount == 0
                fileSystem.arm(.passThrough)
                let readers = call % 2 == 0 ? [crashed, bystander] : [bystander, crashed]
                let seen = try Self.state(of: readers[0])
                if finished {
                    #expect(seen == Self.empty)
                } else {
                    #expect(seen == Self.old || seen == Self.empty, "crash after call \(call): \(seen)")
                    if seen == Self.empty { sawEmptyAfterACrash = true }
                }
                #expect(try Self.state(of: readers[1]) == seen, "crash after call \(call), other reader")
                #expect(
                    try Self.state(of: FileStorageContext(directory: directory.url)) == seen,
                    "crash after call \(call), reopened")
                Self.expectNoLeftovers(directory)
                return finished
            }
            if finished { break }
            crashes += 1
        }
        #expect(crashes >= 8, "only \(crashes) crash points")
        // Some crash points fall after the intent is durable: recovery rolled those forward.
        #expect(sawEmptyAfterACrash)
    }
}
