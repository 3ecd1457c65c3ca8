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
        while flock(fd, operation) != 0 {
            if errno != EINTR { throw FileSystemError(operation: "flock", path: path, code: errno) }
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

// MARK: - Whole-file helpers built from the primitive calls

/// The result of reading a path that may hold a record file.
enum FileContents {
    case absent
    case directory
    /// Something that is neither a regular file nor a directory: a symbolic link (never followed),
    /// a FIFO, a socket or a device.
    case notRegularFile
    case bytes(Data)
}

extension FileSystem {
    /// Reads a whole file. A missing file (or missing parent) is `.absent`; a directory is
    /// `.directory`, so callers can report "a directory where a record should be"; anything else
    /// that is not a regular file is `.notRegularFile`, and is never read.
    ///
    /// Safety: the open never follows a symbolic link in the last component (`O_NOFOLLOW`), so a
    /// link planted in the store cannot make it read a file outside, and never blocks
    /// (`O_NONBLOCK`: opening a FIFO for reading would otherwise wait for a writer, holding the
    /// store's lock and so stopping every writer). On a regular file `O_NONBLOCK` changes nothing.
    func readContents(of path: String) throws(FileSystemError) -> FileContents {
        let fd: Int32
        do throws(FileSystemError) {
            fd = try open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW, 0)
        } catch where error.code == ENOENT {
            return .absent
        } catch where error.code == ELOOP {
            return .notRegularFile
        }
        var closed = false
        defer { if !closed { try? close(fd, path: path) } }
        let status = try status(fd, path: path)
        if status.isDirectory { return .directory }
        if !status.isRegularFile { return .notRegularFile }
        // Sized from fstat and read up to that size, without a last read() to see end of file:
        // record files change only under the exclusive lock, which no reader overlaps.
        var data = Data(count: max(status.size, 0))
        var filled = 0
        while filled < data.count {
            // Data's closures rethrow untyped errors, so the typed error is carried out by hand.
            var failure: FileSystemError?
            let count = data.withUnsafeMutableBytes { buffer -> Int in
                do throws(FileSystemError) {
                    return try read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), path: path)
                } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw failure }
            if count == 0 { break }
            filled += count
        }
        data.count = filled
        closed = true
        try close(fd, path: path)
        return .bytes(data)
    }

    /// Removes a file; one that is already gone (or whose directory is) is fine.
    func unlinkIfPresent(_ path: String) throws(FileSystemError) {
        do {
            try unlink(path)
        } catch where error.code == ENOENT || error.code == ENOTDIR {
        }
    }

    /// Renames `source`; returns `false` when it does not exist.
    func renameIfPresent(_ source: String, _ destination: String) throws(FileSystemError) -> Bool {
        do {
            try rename(source, destination)
            return true
        } catch where error.code == ENOENT {
            return false
        }
    }

    /// The names in `path`, or `nil` when it is not a directory (or is gone).
    func contentsIfDirectory(_ path: String) throws(FileSystemError) -> [String]? {
        do {
            return try contentsOfDirectory(path)
        } catch where error.code == ENOENT || error.code == ENOTDIR {
            return nil
        }
    }

    /// Writes all of `bytes` to `fd`, looping over partial writes.
    func writeAll(_ fd: Int32, _ bytes: Data, path: String) throws(FileSystemError) {
        let failure: FileSystemError? = bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                do throws(FileSystemError) {
                    let written = try write(fd, UnsafeRawBufferPointer(rebasing: buffer[offset...]), path: path)
                    if written <= 0 { return FileSystemError(operation: "write", path: path, code: EIO) }
                    offset += written
                } catch {
                    return error
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// Creates (or truncates) `path` and writes `bytes`, then `fsync`s it when `sync` is set.
    /// On failure the descriptor is closed; the partly written file is left for the caller.
    func writeFile(_ path: String, _ bytes: Data, flags: Int32 = O_WRONLY | O_CREAT | O_TRUNC, sync: Bool) throws(FileSystemError) {
        let fd = try open(path, flags, 0o644)
        do throws(FileSystemError) {
            try writeAll(fd, bytes, path: path)
            if sync { try fsync(fd, path: path) }
        } catch {
            try? close(fd, path: path)
            throw error
        }
        try close(fd, path: path)
    }

    /// Rewrites a file in place: writes `bytes` from offset 0 over the old contents, then cuts the
    /// file to length when it was longer. Unlike `O_TRUNC`, this never truncates to zero, which on
    /// ext4 (`auto_da_alloc`) would force a flush of each file at close and make batches as slow
    /// as single writes. Not atomic: only batches use it, under their undo journal.
    /// - Parameter previousLength: the file's length before, when known; `nil` always cuts.
    /// - Throws: ``FileSystemError/notRegularFile(operation:path:)``, writing nothing, when `path`
    ///   is a symbolic link or anything else that is not a regular file (see
    ///   ``openRegularFileForWriting(_:_:)``).
    func overwriteFile(_ path: String, _ bytes: Data, previousLength: Int?) throws(FileSystemError) {
        let fd = try openRegularFileForWriting(path, O_WRONLY | O_CREAT)
        do throws(FileSystemError) {
            try writeAll(fd, bytes, path: path)
            if previousLength.map({ $0 > bytes.count }) ?? true {
                try truncate(fd, length: bytes.count, path: path)
            }
        } catch {
            try? close(fd, path: path)
            throw error
        }
        try close(fd, path: path)
    }

    /// Opens `path` for writing with `flags`, only if it is a regular file (or `O_CREAT` creates one).
    ///
    /// Safety: the store writes in place only to files it named itself inside its directory, and
    /// must never write through something planted there. `O_NOFOLLOW` refuses a symbolic link
    /// (`ELOOP`) before anything is created or truncated, so a link cannot redirect the write to a
    /// file outside the store; `O_NONBLOCK` makes a FIFO without a reader fail (`ENXIO`) instead
    /// of blocking; and the `fstat` refuses whatever else opened (a FIFO with a reader, a device)
    /// before a byte is written. All of these are ``FileSystemError/notRegularFile(operation:path:)``.
    /// `O_TRUNC` in `flags` is applied by `open`, so callers pass it only for the journal, whose
    /// content is the store's own.
    func openRegularFileForWriting(_ path: String, _ flags: Int32) throws(FileSystemError) -> Int32 {
        let fd: Int32
        do throws(FileSystemError) {
            fd = try open(path, flags | O_NOFOLLOW | O_NONBLOCK, 0o644)
        } catch where error.code == ELOOP || error.code == ENXIO {
            throw .notRegularFile(operation: "open", path: path)
        }
        let regular: Bool
        do throws(FileSystemError) {
            regular = try status(fd, path: path).isRegularFile
        } catch {
            try? close(fd, path: path)
            throw error
        }
        guard regular else {
            try? close(fd, path: path)
            throw .notRegularFile(operation: "open", path: path)
        }
        return fd
    }

    /// `fsync`s a directory, which makes the creation, renaming and removal of its entries durable.
    func syncDirectory(_ path: String) throws(FileSystemError) {
        let fd = try open(path, O_RDONLY | O_DIRECTORY, 0)
        do throws(FileSystemError) {
            try fsync(fd, path: path)
        } catch {
            try? close(fd, path: path)
            throw error
        }
        try close(fd, path: path)
    }

    /// Removes `path` and everything under it, best effort: used only on garbage (trash and
    /// temporary files) that recovery will remove again if this stops half way.
    func removeTreeIgnoringErrors(_ path: String) {
        if let names = try? contentsOfDirectory(path) {
            for name in names {
                let child = path + "/" + name
                if (try? unlink(child)) == nil { removeTreeIgnoringErrors(child) }
            }
        }
        try? removeDirectory(path)
    }
}
