import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed file-system call: which call, on which path, and the `errno` it set.
///
/// `FileStorageContext` turns it into a ``StorageError`` of kind `.io` whose detail is
/// ``message`` and whose location is ``path``.
struct FileSystemError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The call that failed, such as `open` or `rename`.
    let operation: String
    /// The path the call was about.
    let path: String
    /// The `errno` value.
    let code: Int32
    /// Set when the call was refused because `path` is not a regular file (a symbolic link, a
    /// FIFO, a socket, a device): see ``notRegularFile(operation:path:)``.
    var isNotRegularFile = false

    /// An error for a path that holds something other than a regular file where the store needs
    /// one. The store never follows such a thing: a symbolic link could point outside the store,
    /// and a FIFO would block the calling thread, and with it every writer, forever.
    static func notRegularFile(operation: String, path: String) -> FileSystemError {
        FileSystemError(operation: operation, path: path, code: EINVAL, isNotRegularFile: true)
    }

    /// `<operation> failed: <strerror(code)>`, or `<operation> refused: not a regular file`.
    var message: String {
        isNotRegularFile ? "\(operation) refused: not a regular file" : "\(operation) failed: \(String(cString: strerror(code)))"
    }

    var description: String { "\(message) (\(path))" }

    /// Whether the call failed because this process may not change the file system there:
    /// permission denied (`EACCES`, `EPERM`) or a read-only file system (`EROFS`). The store then
    /// still reads, but leaves repairs such as rolling back a journal to a process that may write.
    var deniesWriteAccess: Bool { code == EACCES || code == EPERM || code == EROFS }
}

/// What `fstat`/`stat` says about a path.
struct FileStatus: Sendable, Equatable {
    var isDirectory: Bool
    /// Whether it is a regular file (`S_IFREG`): not a directory, link, FIFO, socket or device.
    var isRegularFile: Bool
    var size: Int
    /// How many directory entries name the file (`st_nlink`): 0 once it has been removed or
    /// replaced by a rename, while a descriptor still keeps it open.
    var linkCount: Int
}

/// How ``FileSystem/lock(_:_:path:)`` changes the advisory lock on a file.
enum AdvisoryLockRequest: Sendable {
    case shared, exclusive, unlock
}

/// The handful of system calls `FileStorageContext` uses, and nothing else.
///
/// Every call goes through this seam so that tests can make any one of them fail
/// (``FaultInjectingFileSystem``) and check that the store keeps its previous state. Each method is
/// one call; paths are passed even to descriptor-based calls so that errors can name the file.
protocol FileSystem: Sendable {
    func open(_ path: String, _ flags: Int32, _ mode: mode_t) throws(FileSystemError) -> Int32
    func close(_ fd: Int32, path: String) throws(FileSystemError)
    /// Reads up to `buffer.count` bytes; 0 at end of file.
    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileSystemError) -> Int
    /// Writes some of `bytes`; returns how many (callers loop).
    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) -> Int
    func status(_ fd: Int32, path: String) throws(FileSystemError) -> FileStatus
    /// `nil` when nothing exists at `path`.
    func status(atPath path: String) throws(FileSystemError) -> FileStatus?
    /// Sets the file's length (`ftruncate`).
    func truncate(_ fd: Int32, length: Int, path: String) throws(FileSystemError)
    func fsync(_ fd: Int32, path: String) throws(FileSystemError)
    /// Flushes every file and directory of the file system holding `fd` (Linux `syncfs`).
    /// Returns `false`, doing nothing, where the platform has no such call.
    func syncFileSystem(_ fd: Int32, path: String) throws(FileSystemError) -> Bool
    func rename(_ source: String, _ destination: String) throws(FileSystemError)
    func unlink(_ path: String) throws(FileSystemError)
    func makeDirectory(_ path: String) throws(FileSystemError)
    func removeDirectory(_ path: String) throws(FileSystemError)
    /// The names in a directory, without `.` and `..`.
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String]
    func lock(_ fd: Int32, _ request: AdvisoryLockRequest, path: String) throws(FileSystemError)
}

/// The real file system, through POSIX calls. Interrupted calls (`EINTR`) are retried.
struct POSIXFileSystem: FileSystem {
    func open(_ path: String, _ flags: Int32, _ mode: mode_t) throws(FileSystemError) -> Int32 {
        while true {
            let fd = systemOpen(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if errno != EINTR { throw FileSystemError(operation: "open", path: path, code: errno) }
        }
    }

    func close(_ fd: Int32, path: String) throws(FileSystemError) {
        // Never retried: the descriptor is released even when close reports an error.
        let result = systemClose(fd)
        if result != 0 && errno != EINTR { throw FileSystemError(operation: "close", path: path, code: errno) }
    }

    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        while true {
            let count = systemRead(fd, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            if errno != EINTR { throw FileSystemError(operation: "read", path: path, code: errno) }
        }
    }

    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        while true {
            let count = systemWrite(fd, bytes.baseAddress, bytes.count)
            if count >= 0 { return count }
            if errno != EINTR { throw FileSystemError(operation: "write", path: path, code: errno) }
        }
    }

    func status(_ fd: Int32, path: String) throws(FileSystemError) -> FileStatus {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileSystemError(operation: "fstat", path: path, code: errno) }
        return FileStatus(info)
    }

    func status(atPath path: String) throws(FileSystemError) -> FileStatus? {
        var info = stat()
        guard stat(path, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw FileSystemError(operation: "stat", path: path, code: errno)
        }
        return FileStatus(info)
    }

    func truncate(_ fd: Int32, length: Int, path: String) throws(FileSystemError) {
        while ftruncate(fd, off_t(length)) != 0 {
            if errno != EINTR { throw FileSystemError(operation: "ftruncate", path: path, code: errno) }
        }
    }

    func fsync(_ fd: Int32, path: String) throws(FileSystemError) {
        while systemFsync(fd) != 0 {
            if errno != EINTR { throw FileSystemError(operation: "fsync", path: path, code: errno) }
        }
    }

    func syncFileSystem(_ fd: Int32, path: String) throws(FileSystemError) -> Bool {
        guard let syncfs = Self.syncfs else { return false }
        while syncfs(fd) != 0 {
            if errno != EINTR { throw FileSystemError(operation: "syncfs", path: path, code: errno) }
        }
        return true
    }

    /// Linux's `syncfs(2)`, looked up at run time because the Glibc module does not export it.
    /// It lets a batch flush all its files with one call instead of one `fsync` per file.
    ///
    /// Only on Linux 5.8 and later: before that, `syncfs` returned 0 even when writing some data
    /// back had failed, so a batch would commit over records that never reached the disk. An
    /// `fsync` per file reports such errors on every kernel, so older kernels get that instead.
    private static let syncfs: (@convention(c) (Int32) -> Int32)? = {
        #if os(Linux)
        guard reportsWritebackErrorsFromSyncfs(kernelRelease: kernelRelease()) else { return nil }
        guard let symbol = dlsym(nil, "syncfs") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// Whether a Linux kernel of this release (`uname -r`, such as `5.15.0-91-generic`) reports
    /// write-back errors from `syncfs`, which it does from 5.8 on. An unreadable release is taken
    /// as too old: the fallback is slower but always safe.
    static func reportsWritebackErrorsFromSyncfs(kernelRelease release: String) -> Bool {
        let numbers = release.split(whereSeparator: { !$0.isNumber }).prefix(2).map { Int($0) ?? 0 }
        guard numbers.count == 2, release.first?.isNumber == true else { return false }
        return (numbers[0], numbers[1]) >= (5, 8)
    }

    /// The running kernel's release, as `uname -r` prints it.
    static func kernelRelease() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "" }
        return withUnsafeBytes(of: &names.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    func rename(_ source: String, _ destination: String) throws(FileSystemError) {
        let result = systemRename(source, destination)
        if result != 0 { throw FileSystemError(operation: "rename", path: destination, code: errno) }
    }

    func unlink(_ path: String) throws(FileSystemError) {
        let result = systemUnlink(path)
        if result != 0 { throw FileSystemError(operation: "unlink", path: path, code: errno) }
    }

    func makeDirectory(_ path: String) throws(FileSystemError) {
        if mkdir(path, 0o755) != 0 { throw FileSystemError(operation: "mkdir", path: path, code: errno) }
    }

    func removeDirectory(_ path: String) throws(FileSystemError) {
        if rmdir(path) != 0 { throw FileSystemError(operation: "rmdir", path: path, code: errno) }
    }

    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        guard let stream = opendir(path) else { throw FileSystemError(operation: "opendir", path: path, code: errno) }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw FileSystemError(operation: "readdir", path: path, code: errno) }
                return names
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    func lock(_ fd: Int32, _ request: AdvisoryLockRequest, path: String) throws(FileSystemError) {
        let operation: Int32
        switch request {
        case .shared: operation = LOCK_SH
        case .exclusive: operation = LOCK_EX
        case .unlock: operation = LOCK_UN
        }
        // Work an `async` DAO call runs on DAOKit's threads may be cancelled while it waits for
        // another process: it polls instead of blocking (see `BlockingWork`).
        if request != .unlock, let cancellation = BlockingWork.current {
            return try lockPolling(fd, operation, path: path, cancellation: cancellation)
        }
        while flock(fd, operation) != 0 {
            if errno != EINTR { throw FileSystemError(operation: "flock", path: path, code: errno) }
        }
    }

    /// Takes the lock without blocking, retrying every 1–16 ms until it is free or `cancellation`
    /// is set, which throws `ECANCELED` before anything was locked.
    private func lockPolling(_ fd: Int32, _ operation: Int32, path: String, cancellation: CancellationFlag) throws(FileSystemError) {
        var pause: UInt32 = 1_000
        while flock(fd, operation | LOCK_NB) != 0 {
            let code = errno
            if code == EINTR { continue }
            if code != EWOULDBLOCK { throw FileSystemError(operation: "flock", path: path, code: code) }
            if cancellation.isCancelled { throw FileSystemError(operation: "flock", path: path, code: ECANCELED) }
            usleep(pause)
            pause = min(pause * 2, 16_000)
        }
    }
}

extension FileStatus {
    init(_ info: stat) {
        self.init(isDirectory: (info.st_mode & S_IFMT) == S_IFDIR, isRegularFile: (info.st_mode & S_IFMT) == S_IFREG,
                  size: Int(info.st_size), linkCount: Int(info.st_nlink))
    }
}

// The C functions under names the protocol's methods do not shadow (file scope resolves to C).
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int { read(fd, buffer, count) }
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func systemFsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
