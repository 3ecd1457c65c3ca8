import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file system calls of the raw baseline, made directly: what a careful app writes by hand to
/// keep one record per file without a library. Every call fails with a ``RawIOError``.
///
/// The calls are plain POSIX, like `FileStorageContext`'s, so that the baseline is as fast as hand
/// code can be: Foundation's `Data(contentsOf:)` or `FileManager` would add their own overhead
/// and flatter the ratio.
enum RawFileIO {
    /// Replaces `path` with `bytes` atomically and durably, the way `FileStorageContext` writes one
    /// record: a new file next to it, written, `fsync`ed, renamed over `path`, and the directory
    /// `fsync`ed so that the rename survives a crash.
    static func replaceDurably(_ path: String, with bytes: Data, temporaryPath: String, directory: String) throws {
        let fd = try openFile(temporaryPath, O_WRONLY | O_CREAT | O_EXCL)
        do {
            try writeAll(bytes, to: fd, path: temporaryPath)
            try check(fsync(fd), "fsync", temporaryPath)
        } catch {
            close(fd)
            unlink(temporaryPath)
            throw error
        }
        try check(close(fd), "close", temporaryPath)
        try check(rename(temporaryPath, path), "rename", path)
        try syncDirectory(directory)
    }

    /// Overwrites `path` with `bytes` in place, without `fsync`: the write half of a batch whose
    /// files are flushed together afterwards. Not atomic, so not crash-safe on its own.
    static func overwrite(_ path: String, with bytes: Data) throws {
        let fd = try openFile(path, O_WRONLY | O_CREAT)
        do {
            // Truncate only when the file shrinks, as FileStorageContext does: an unneeded
            // ftruncate is an extra syscall and inode update that would flatter the context.
            var status = stat()
            try check(fstat(fd, &status), "fstat", path)
            try writeAll(bytes, to: fd, path: path)
            if status.st_size > off_t(bytes.count) {
                try check(ftruncate(fd, off_t(bytes.count)), "ftruncate", path)
            }
        } catch {
            close(fd)
            throw error
        }
        try check(close(fd), "close", path)
    }

    /// Makes everything written under `directory` durable with one call: `syncfs` on Linux, which is
    /// how `FileStorageContext` flushes a batch; elsewhere `sync`.
    static func flushFileSystem(containing directory: String) throws {
        #if os(Linux)
            if let syncfs = linuxSyncfs {
                let fd = try openFile(directory, O_RDONLY | O_DIRECTORY)
                defer { close(fd) }
                try check(syncfs(fd), "syncfs", directory)
                return
            }
        #endif
        sync()
    }

    /// The whole contents of `path`: sized with `fstat`, read in as few calls as the system allows.
    static func contents(of path: String) throws -> Data {
        let fd = try openFile(path, O_RDONLY)
        defer { close(fd) }
        var info = stat()
        try check(fstat(fd, &info), "fstat", path)
        var data = Data(count: Int(info.st_size))
        var filled = 0
        while filled < data.count {
            let count = data.withUnsafeMutableBytes { buffer in
                read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0 && errno == EINTR { continue }
            try check(count < 0 ? -1 : 0, "read", path)
            if count == 0 { break }
            filled += count
        }
        data.count = filled
        return data
    }

    /// The names in `directory`, without `.` and `..`.
    static func fileNames(in directory: String) throws -> [String] {
        guard let stream = opendir(directory) else {
            throw RawIOError(operation: "opendir", path: directory, code: errno)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(cString: $0.bindMemory(to: CChar.self).baseAddress!)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    static func syncDirectory(_ directory: String) throws {
        let fd = try openFile(directory, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        try check(fsync(fd), "fsync", directory)
    }

    private static func openFile(_ path: String, _ flags: Int32) throws -> Int32 {
        while true {
            let fd = open(path, flags | O_CLOEXEC, 0o644)
            if fd >= 0 { return fd }
            if errno != EINTR { throw RawIOError(operation: "open", path: path, code: errno) }
        }
    }

    private static func writeAll(_ bytes: Data, to fd: Int32, path: String) throws {
        try bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 && errno == EINTR { continue }
                try check(written < 0 ? -1 : 0, "write", path)
                offset += written
            }
        }
    }

    private static func check(_ result: Int32, _ operation: String, _ path: String) throws {
        if result != 0 { throw RawIOError(operation: operation, path: path, code: errno) }
    }

    #if os(Linux)
        /// `syncfs(2)`, which the Glibc module does not export; looked up once in the C library.
        private static let linuxSyncfs: (@convention(c) (Int32) -> Int32)? = {
            dlsym(nil, "syncfs").map { unsafeBitCast($0, to: (@convention(c) (Int32) -> Int32).self) }
        }()
    #endif
}
