import DAOKitInternals
import DAOKitStoreFormat
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``FileSystem`` that forwards to another one and makes chosen calls fail, for tests.
///
/// Calls are numbered from 1 from the moment the mode is set, and logged by name. Three modes:
/// - ``Mode/fail(operation:code:)``: the Nth call fails with `code` (such as `ENOSPC` or
///   `EACCES`) and every other call goes through — an I/O error the store must survive while
///   running, leaving its previous state.
/// - ``Mode/crash(after:)``: every call after the Nth fails with `EIO` and changes nothing — as if
///   the process had died there, so that reopening the directory must recover a whole state.
///   `close` and `unlock` still release the descriptor and lock, so the test process can go on.
/// - ``Mode/denyWrites(code:)``: every call that would create, change or remove something fails
///   with `code` (`EACCES` for a store owned by someone else, `EROFS` for a read-only mount), as
///   for a process without write access — which tests running as root cannot otherwise be. Opening
///   for writing counts as changing, even where the file is not changed after all; `mkdir` of an
///   existing path still fails with `EEXIST` first, as the kernel's does; `fsync`, `syncfs` and
///   `flock` work, as they do on read-only descriptors.
final class FaultInjectingFileSystem: FileSystem, @unchecked Sendable {
    enum Mode: Sendable, Equatable {
        case passThrough
        case fail(operation: Int, code: Int32)
        case crash(after: Int)
        case denyWrites(code: Int32)
        /// From call N on, every call that needs free space fails with `ENOSPC` — `write`,
        /// `mkdir`, and an `open` that would create a file — as on a full disk, where truncating,
        /// renaming, removing and syncing still work.
        case fullDisk(from: Int)
    }

    /// Replaced once, by ``confined(to:)``, before the store makes its first call below its directory.
    private var base: any FileSystem
    private let mutex = NSLock()
    private var mode = Mode.passThrough
    private var calls = 0
    private var failures = 0
    private var log: [String] = []

    init(base: any FileSystem = POSIXFileSystem()) {
        self.base = base
    }

    /// Confines the file system it forwards to, and goes on counting and failing calls itself:
    /// the store's calls below its directory then reach the real, confined one through this.
    func confined(to root: String) throws(FileSystemError) -> any FileSystem {
        let confined = try base.confined(to: root)
        mutex.withLock { base = confined }
        return self
    }

    /// Sets the mode and restarts the numbering of calls.
    func arm(_ mode: Mode) {
        mutex.withLock {
            self.mode = mode
            calls = 0
            failures = 0
            log = []
        }
    }

    /// How many calls were made since the last ``arm(_:)``.
    var callCount: Int { mutex.withLock { calls } }
    /// How many calls were made to fail since the last ``arm(_:)``.
    var failureCount: Int { mutex.withLock { failures } }
    /// The calls made since the last ``arm(_:)``, as `<operation> <last path component>`, such as
    /// `open .lock` or `syncfs store`.
    var operations: [String] { mutex.withLock { log } }

    /// Counts a call and throws when the mode says it fails.
    /// - Parameters:
    ///   - releases: the call releases a descriptor or lock, which even a crash does.
    ///   - changes: the call creates, changes or removes something, which ``Mode/denyWrites(code:)``
    ///     refuses.
    private func enter(
        _ operation: String, _ path: String, releases: Bool = false, changes: Bool = false, needsSpace: Bool = false
    ) throws(FileSystemError) {
        let code: Int32? = mutex.withLock {
            calls += 1
            log.append(operation + " " + (path.split(separator: "/").last.map(String.init) ?? path))
            switch mode {
            case .passThrough:
                return nil
            case .fail(let number, let code):
                return calls == number ? code : nil
            case .crash(let after):
                return calls > after && !releases ? EIO : nil
            case .denyWrites(let code):
                return changes ? code : nil
            case .fullDisk(let from):
                return calls >= from && needsSpace ? ENOSPC : nil
            }
        }
        if let code {
            mutex.withLock { failures += 1 }
            throw FileSystemError(operation: operation, path: path, code: code)
        }
    }

    func open(_ path: String, _ flags: Int32, _ mode: mode_t) throws(FileSystemError) -> Int32 {
        try enter(
            "open", path, changes: flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC) != 0,
            needsSpace: creates(path, flags))
        return try base.open(path, flags, mode)
    }

    func close(_ fd: Int32, path: String) throws(FileSystemError) {
        // The descriptor is released whatever happens, as with the real close(2).
        let injected: FileSystemError?
        do {
            try enter("close", path, releases: true)
            injected = nil
        } catch { injected = error }
        try base.close(fd, path: path)
        if let injected { throw injected }
    }

    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        try enter("read", path)
        return try base.read(fd, into: buffer, path: path)
    }

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        try enter("write", path, changes: true, needsSpace: true)
        return try base.write(fd, bytes, path: path)
    }

    func status(_ fd: Int32, path: String) throws(FileSystemError) -> FileStatus {
        try enter("fstat", path)
        return try base.status(fd, path: path)
    }

    func status(atPath path: String) throws(FileSystemError) -> FileStatus? {
        try enter("stat", path)
        return try base.status(atPath: path)
    }

    func truncate(_ fd: Int32, length: Int, path: String) throws(FileSystemError) {
        try enter("ftruncate", path, changes: true)
        try base.truncate(fd, length: length, path: path)
    }

    func fsync(_ fd: Int32, path: String) throws(FileSystemError) {
        try enter("fsync", path)
        try base.fsync(fd, path: path)
    }

    func syncFileSystem(_ fd: Int32, path: String) throws(FileSystemError) -> Bool {
        try enter("syncfs", path)
        return try base.syncFileSystem(fd, path: path)
    }

    func rename(_ source: String, _ destination: String) throws(FileSystemError) {
        try enter("rename", destination, changes: true)
        try base.rename(source, destination)
    }

    func unlink(_ path: String) throws(FileSystemError) {
        try enter("unlink", path, changes: true)
        try base.unlink(path)
    }

    func open(_ name: String, in directory: Int32, _ flags: Int32, _ mode: mode_t, path: String) throws(FileSystemError)
        -> Int32
    {
        try enter(
            "open", path, changes: flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC) != 0,
            needsSpace: creates(path, flags))
        return try base.open(name, in: directory, flags, mode, path: path)
    }

    func rename(_ source: String, to destination: String, in directory: Int32, path: String) throws(FileSystemError) {
        try enter("rename", path, changes: true)
        try base.rename(source, to: destination, in: directory, path: path)
    }

    func unlink(_ name: String, in directory: Int32, path: String) throws(FileSystemError) {
        try enter("unlink", path, changes: true)
        try base.unlink(name, in: directory, path: path)
    }

    func makeDirectory(_ path: String) throws(FileSystemError) {
        // The kernel reports an existing path before it checks for write access.
        let denying = mutex.withLock { if case .denyWrites = mode { true } else { false } }
        if denying, (try? base.status(atPath: path)) != nil {
            try enter("mkdir", path)
            throw FileSystemError(operation: "mkdir", path: path, code: EEXIST)
        }
        // An existing directory is EEXIST even on a full disk: only a new one needs space.
        try enter("mkdir", path, changes: true, needsSpace: !FileManager.default.fileExists(atPath: path))
        try base.makeDirectory(path)
    }

    /// Whether an `open` with `flags` would create the file at `path` (it does not exist yet).
    private func creates(_ path: String, _ flags: Int32) -> Bool {
        flags & O_CREAT != 0 && FileManager.default.fileExists(atPath: path) == false
    }

    func removeDirectory(_ path: String) throws(FileSystemError) {
        try enter("rmdir", path, changes: true)
        try base.removeDirectory(path)
    }

    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        try enter("opendir", path)
        return try base.contentsOfDirectory(path)
    }

    func lock(_ fd: Int32, _ request: AdvisoryLockRequest, path: String) throws(FileSystemError) {
        if request == .unlock {
            let injected: FileSystemError?
            do {
                try enter("flock", path, releases: true)
                injected = nil
            } catch { injected = error }
            try base.lock(fd, .unlock, path: path)
            if let injected { throw injected }
        } else {
            try enter("flock", path)
            try base.lock(fd, request, path: path)
        }
    }
}
