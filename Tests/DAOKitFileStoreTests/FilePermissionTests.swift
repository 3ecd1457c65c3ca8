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

/// A read-only store with real permission bits, opened by a process that may not write it.
///
/// Root ignores permission bits, so when the tests run as root the `DAOKitCrashWriter` child gives
/// up root for `nobody` (65534) before it opens the store; for an ordinary user it runs as that
/// user. Either way the child must be refused every write — it reports `writable no` from
/// `access(2)` first, so the test cannot pass by writing to a store it was meant to be kept out of.
/// ``FileReadOnlyStoreTests`` checks the same rules in process, through the I/O seam.
@Suite("File permissions")
struct FilePermissionTests {
    static let nobody: uid_t = 65534

    /// What a crash can leave in a store: a torn journal and a write's temporary file. A process
    /// without write access can remove neither, and must read anyway.
    private static func leaveCrashLeftovers(_ directory: FileTestDirectory) throws {
        let entityDirectory = directory.path + "/" + FileNameCodec.encode(FileCrashRecord.entityName)
        try Data("half a record".utf8).write(to: URL(fileURLWithPath: entityDirectory + "/.tmp-1234"))
        let torn = Journal(
            directoryName: FileNameCodec.encode(FileCrashRecord.entityName),
            entries: [.init(fileName: "base-0.json", previousContents: Data("stale".utf8))]
        ).serialized().dropLast(3)
        try torn.write(to: URL(fileURLWithPath: directory.path + "/.journal"))
    }

    @Test(
        "a read-only store reads, refuses writes naming the path, and keeps its state",
        arguments: [1, 3], [false, true])
    func aReadOnlyStoreReadsAndRefusesWrites(_ batchSize: Int, _ withCrashLeftovers: Bool) throws {
        try FileTestDirectory.with { directory in
            try FileStorageContext(directory: directory.url).save([
                FileCrashRecord(id: "base-0", generation: 1, payload: "p0"),
                FileCrashRecord(id: "base-1", generation: 1, payload: "p1"),
            ])
            if withCrashLeftovers { try Self.leaveCrashLeftovers(directory) }
            directory.makeReadOnly()
            let before = try directory.snapshot()

            var arguments = ["readonly", directory.path, String(batchSize)]
            if fileTestsRunAsRoot { arguments.append(String(Self.nobody)) }
            let (status, output, errors) = try FileChildProcess(arguments: arguments).finish()
            #expect(status == 0, "the child failed: \(errors)")
            let lines = Dictionary(
                output.map { line in
                    let parts = line.split(separator: " ", maxSplits: 1)
                    return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
                }, uniquingKeysWith: { first, second in first + "\n" + second })
            #expect(lines["euid"] == String(fileTestsRunAsRoot ? Self.nobody : geteuid()))
            #expect(lines["writable"] == "no", "the child may write to the store, so the test proves nothing")
            #expect(lines["before"] == "base-0=1,base-1=1")
            let save = lines["save"] ?? ""
            #expect(
                save.hasPrefix("failed ") && save.contains("I/O failure (open failed: Permission denied)"), "\(save)")
            #expect(
                save.contains("location \(directory.path)/"), "the error does not name a path in the store: \(save)")
            #expect(
                lines["deleteAll"]?.hasPrefix("failed ") == true
                    && lines["deleteAll"]?.contains("Permission denied") == true,
                "\(lines["deleteAll"] ?? "")")
            #expect(lines["after"] == "base-0=1,base-1=1")
            #expect(try directory.snapshot() == before, "the refused writes changed the store")

            // The first process that may write repairs what the readers had to leave.
            directory.makeWritable()
            let context = try FileStorageContext(directory: directory.url)
            #expect(try context.fetchAll(FileCrashRecord.self).map(\.id).sorted() == ["base-0", "base-1"])
            #expect(!fileTreeNames(directory.path).contains { $0.contains(".tmp-") })
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.path + "/.journal")).isEmpty)
        }
    }
}
