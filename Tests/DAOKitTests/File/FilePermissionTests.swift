@testable import DAOKit
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("File permissions")
struct FilePermissionTests {
    static let oldState = [FileNote(id: "a", text: "old a"), FileNote(id: "b", text: "old b")]

    /// Makes the store and everything in it read-only, as `chmod -R a-w` would.
    private func makeReadOnly(_ directory: FileTestDirectory) {
        for name in fileTreeNames(directory.path) {
            var info = stat()
            let path = directory.path + "/" + name
            guard stat(path, &info) == 0 else { continue }
            _ = chmod(path, (info.st_mode & S_IFMT) == S_IFDIR ? 0o555 : 0o444)
        }
        _ = chmod(directory.path, 0o555)
    }

    /// With real permission bits. An ordinary user gets EACCES, named with the path, and the old
    /// state; root, whom the kernel lets write anyway, gets the write — either way the store stays
    /// whole and readable.
    @Test("a read-only store refuses writes and keeps its state", arguments: [1, 3])
    func aReadOnlyStoreRefusesWritesAndKeepsItsState(_ batchSize: Int) throws {
        try FileTestDirectory.with { directory in
            try FileStorageContext(directory: directory.url).save(Self.oldState)
            makeReadOnly(directory)
            let context = try FileStorageContext(directory: directory.url)
            #expect(try context.notes() == Self.oldState)
            let batch = (0..<batchSize).map { FileNote(id: $0 == 0 ? "a" : "new\($0)", text: "new") }
            do {
                try context.save(batch)
                #expect(fileTestsRunAsRoot, "an ordinary user wrote to a read-only store")
                #expect(try context.fetch(FileNote.self, id: "a")?.text == "new")
            } catch let error as StorageError {
                #expect(!fileTestsRunAsRoot, "root was refused: \(error)")
                #expect(error.description.contains("Permission denied"), "\(error)")
                #expect(error.location?.hasPrefix(directory.path) == true)
                #expect(try context.notes() == Self.oldState)
            }
        }
    }

    /// The same refusal, simulated through the I/O seam so that it is checked even as root: every
    /// call that creates or changes something fails with EACCES.
    @Test("permission denied on any write call keeps the old state", arguments: [1, 3])
    func permissionDeniedOnAnyWriteCallKeepsTheOldState(_ batchSize: Int) throws {
        try FileTestDirectory.with { directory in
            try FileStorageContext(directory: directory.url).save(Self.oldState)
            let fileSystem = ReadOnlyFileSystem()
            let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            fileSystem.readOnly = true
            #expect(try context.notes() == Self.oldState)
            let batch = (0..<batchSize).map { FileNote(id: $0 == 0 ? "a" : "new\($0)", text: "new") }
            let error = try #require(throws: StorageError.self) { try context.save(batch) }
            #expect(error.description.contains("Permission denied"))
            #expect(error.location?.hasPrefix(directory.path) == true)
            let deletion = try #require(throws: StorageError.self) { try context.delete(FileNote.self, ids: ["a", "b"]) }
            #expect(deletion.description.contains("Permission denied"))
            #expect(throws: StorageError.self) { try context.deleteAll(FileNote.self) }
            #expect(try context.notes() == Self.oldState)
            fileSystem.readOnly = false
            #expect(try FileStorageContext(directory: directory.url).notes() == Self.oldState)
        }
    }
}

/// A file system on which, while ``readOnly`` is set, every call that would create, change or
/// remove something fails with EACCES, as on a read-only directory for an ordinary user.
final class ReadOnlyFileSystem: FileSystem, @unchecked Sendable {
    private let base = POSIXFileSystem()
    private let lock = NSLock()
    private var flag = false
    var readOnly: Bool {
        get { lock.withLock { flag } }
        set { lock.withLock { flag = newValue } }
    }

    private func refuse(_ operation: String, _ path: String) throws(FileSystemError) {
        if readOnly { throw FileSystemError(operation: operation, path: path, code: EACCES) }
    }

    func open(_ path: String, _ flags: Int32, _ mode: mode_t) throws(FileSystemError) -> Int32 {
        if flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC) != 0 && !path.hasSuffix("/.lock") { try refuse("open", path) }
        return try base.open(path, flags, mode)
    }
    func close(_ fd: Int32, path: String) throws(FileSystemError) { try base.close(fd, path: path) }
    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        try base.read(fd, into: buffer, path: path)
    }
    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        try base.write(fd, bytes, path: path)
    }
    func status(_ fd: Int32, path: String) throws(FileSystemError) -> FileStatus { try base.status(fd, path: path) }
    func status(atPath path: String) throws(FileSystemError) -> FileStatus? { try base.status(atPath: path) }
    func truncate(_ fd: Int32, length: Int, path: String) throws(FileSystemError) {
        try base.truncate(fd, length: length, path: path)
    }
    func fsync(_ fd: Int32, path: String) throws(FileSystemError) { try base.fsync(fd, path: path) }
    func syncFileSystem(_ fd: Int32, path: String) throws(FileSystemError) -> Bool { try base.syncFileSystem(fd, path: path) }
    func rename(_ source: String, _ destination: String) throws(FileSystemError) {
        try refuse("rename", destination)
        try base.rename(source, destination)
    }
    func unlink(_ path: String) throws(FileSystemError) {
        try refuse("unlink", path)
        try base.unlink(path)
    }
    func makeDirectory(_ path: String) throws(FileSystemError) {
        // mkdir reports an existing directory before checking permission, as the kernel does.
        if try base.status(atPath: path) != nil { throw FileSystemError(operation: "mkdir", path: path, code: EEXIST) }
        try refuse("mkdir", path)
        try base.makeDirectory(path)
    }
    func removeDirectory(_ path: String) throws(FileSystemError) {
        try refuse("rmdir", path)
        try base.removeDirectory(path)
    }
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] { try base.contentsOfDirectory(path) }
    func lock(_ fd: Int32, _ request: AdvisoryLockRequest, path: String) throws(FileSystemError) {
        try base.lock(fd, request, path: path)
    }
}
