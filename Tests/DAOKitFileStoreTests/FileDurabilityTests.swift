import DAOKitStoreFormat
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

/// How a batch makes itself durable before it commits: an `fsync` per file and directory for a
/// small batch, one `syncfs` for a large one where the kernel reports write-back errors from it.
@Suite("File durability")
struct FileDurabilityTests {
    /// Saves `count` new notes in one batch and returns the calls the batch made.
    private func callsOfBatch(saving count: Int, in directory: FileTestDirectory) throws -> [String] {
        let fileSystem = FaultInjectingFileSystem()
        let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
        // A first batch creates the entity directory and the journal, which later batches reuse.
        try context.save([FileNote(id: "warm-up", text: "w"), FileNote(id: "warm-up too", text: "w")])
        fileSystem.arm(.passThrough)
        try context.save((0..<count).map { FileNote(id: "n\($0)", text: "t") })
        return fileSystem.operations
    }

    @Test func aSmallBatchSyncsItsOwnFilesAndNotTheWholeFileSystem() throws {
        try FileTestDirectory.with { directory in
            let count = FileStorageContext.perFileSyncLimit
            let calls = try callsOfBatch(saving: count, in: directory)
            let syncs = calls.filter { $0.hasPrefix("fsync ") || $0.hasPrefix("syncfs ") }
            let expected = (0..<count).map { "fsync n\($0).json" } + ["fsync ^file^note"]
            #expect(Array(syncs.drop { $0 != "fsync n0.json" }.prefix(count + 1)) == expected, "\(calls)")
            #expect(
                syncs.count == count + 3, "one fsync per file, for the directory and twice for the journal: \(calls)")
        }
    }

    @Test func aSingleReplaceSyncsTheNewFileAndItsFolderThroughOneDescriptorOfIt() throws {
        try FileTestDirectory.with { directory in
            let fileSystem = FaultInjectingFileSystem()
            let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            // A batch leaves the journal (empty) that every later write checks; the first write
            // after it opens it and keeps it open, as it keeps `.changes`.
            try context.save([FileNote(id: "a", text: "old"), FileNote(id: "b", text: "old")])
            try context.save([FileNote(id: "b", text: "new")])
            fileSystem.arm(.passThrough)
            try context.save([FileNote(id: "a", text: "new")])
            // The temporary file's name is random.
            let calls = fileSystem.operations.map {
                $0.replacingOccurrences(of: #"\.tmp-[0-9a-f]+"#, with: ".tmp", options: .regularExpression)
            }
            #expect(
                calls == [
                    "flock .lock", "fstat .journal", "fstat .changes", "write .changes",
                    "open ^file^note", "open a.json", "fstat a.json", "read a.json", "close a.json",
                    "open .tmp", "write .tmp", "fsync .tmp", "close .tmp", "rename a.json",
                    "fsync ^file^note", "close ^file^note", "flock .lock",
                ])
        }
    }

    @Test func aBatchOfDeletionsSyncsOnlyItsDirectory() throws {
        try FileTestDirectory.with { directory in
            let fileSystem = FaultInjectingFileSystem()
            let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            try context.save((0..<20).map { FileNote(id: "n\($0)", text: "t") })
            fileSystem.arm(.passThrough)
            try context.delete(FileNote.self, ids: (0..<20).map { "n\($0)" })
            let calls = fileSystem.operations
            let syncs = calls.filter { $0.hasPrefix("fsync ") || $0.hasPrefix("syncfs ") }
            #expect(syncs == ["fsync .journal", "fsync ^file^note", "fsync .journal"], "\(calls)")
        }
    }

    @Test func aLargeBatchSyncsTheFileSystemOnceWhereTheKernelReportsErrorsFromIt() throws {
        try FileTestDirectory.with { directory in
            let count = FileStorageContext.perFileSyncLimit + 1
            let calls = try callsOfBatch(saving: count, in: directory)
            // Counted outside #expect: a closure inside the macro's expansion and a like one after
            // it were seen to share one body (Swift 6.3.1), which made a later count wrong.
            let recordSyncs = calls.filter { $0.hasPrefix("fsync n") }.count
            let fileSystemSyncs = calls.filter { $0.hasPrefix("syncfs ") }.count
            #expect(fileSystemSyncs == 1, "\(calls)")
            #if os(Linux)
                if POSIXFileSystem.reportsWritebackErrorsFromSyncfs(kernelRelease: POSIXFileSystem.kernelRelease()) {
                    #expect(recordSyncs == 0, "\(calls)")
                } else {
                    #expect(recordSyncs == count, "\(calls)")
                }
            #else
                #expect(recordSyncs == count, "\(calls)")
            #endif
        }
    }

    @Test(
        "syncfs is trusted from Linux 5.8 on",
        arguments: [
            ("5.8.0", true), ("5.10.0-28-amd64", true), ("6.18.44-fc-v509", true), ("10.0", true),
            ("5.7.19", false), ("4.19.0-25-amd64", false), ("3.10.0-1160.el7.x86_64", false), ("", false),
            ("garbage", false),
        ])
    func syncfsIsTrustedFromLinux58(_ release: String, _ trusted: Bool) {
        #expect(POSIXFileSystem.reportsWritebackErrorsFromSyncfs(kernelRelease: release) == trusted)
    }
}
