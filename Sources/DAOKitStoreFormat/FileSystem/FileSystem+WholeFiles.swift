import DAOKitInternals
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Whole-file helpers built from the primitive calls of `FileSystem`, so that they behave the same
// over the real system and the fault-injecting one.

/// The result of reading a path that may hold a record file.
package enum FileContents: Equatable {
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
    /// Safety: the open never follows a symbolic link (`O_NOFOLLOW`, and the confinement of
    /// ``FileSystem/confined(to:)`` for the components before the last), so a link planted in the
    /// store cannot make it read a file outside, and never blocks
    /// (`O_NONBLOCK`: opening a FIFO for reading would otherwise wait for a writer, holding the
    /// store's lock and so stopping every writer). On a regular file `O_NONBLOCK` changes nothing.
    package func readContents(of path: String) throws(FileSystemError) -> FileContents {
        try readContents(path: path) { flags throws(FileSystemError) in try open(path, flags, 0) }
    }

    /// ``readContents(of:)`` of the entry `name` of the directory open as `directory`, whose whole
    /// path is `path` (see ``FileSystem/open(_:in:_:_:path:)``).
    package func readContents(of name: String, in directory: Int32, path: String) throws(FileSystemError)
        -> FileContents
    {
        try readContents(path: path) { flags throws(FileSystemError) in
            try open(name, in: directory, flags, 0, path: path)
        }
    }

    /// ``readContents(of:)`` with the file opened by `open`, given the flags.
    private func readContents(path: String, opening open: (Int32) throws(FileSystemError) -> Int32)
        throws(FileSystemError) -> FileContents
    {
        let fd: Int32
        do throws(FileSystemError) {
            fd = try open(O_RDONLY | O_NONBLOCK | O_NOFOLLOW)
        } catch  where error.code == ENOENT {
            return .absent
        } catch  where error.code == ELOOP {
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
    package func unlinkIfPresent(_ path: String) throws(FileSystemError) {
        do {
            try unlink(path)
        } catch  where (error.code == ENOENT || error.code == ENOTDIR) && error.refusal == nil {
        }
    }

    /// Removes the entry `name` of the directory open as `directory`, whose whole path is `path`;
    /// one that is already gone is fine.
    package func unlinkIfPresent(_ name: String, in directory: Int32, path: String) throws(FileSystemError) {
        do {
            try unlink(name, in: directory, path: path)
        } catch  where error.code == ENOENT && error.refusal == nil {
        }
    }

    /// Renames `source`; returns `false` when it does not exist.
    package func renameIfPresent(_ source: String, _ destination: String) throws(FileSystemError) -> Bool {
        do {
            try rename(source, destination)
            return true
        } catch  where error.code == ENOENT {
            return false
        }
    }

    /// The names in `path`, or `nil` when it is not a directory (or is gone).
    package func contentsIfDirectory(_ path: String) throws(FileSystemError) -> [String]? {
        do {
            return try contentsOfDirectory(path)
        } catch  where error.code == ENOENT || error.code == ENOTDIR {
            return nil
        }
    }

    /// Writes all of `bytes` (`Data`, `[UInt8]`) to `fd`, looping over partial writes.
    package func writeAll(_ fd: Int32, _ bytes: some ContiguousBytes, path: String) throws(FileSystemError) {
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
    package func writeFile(_ path: String, _ bytes: Data, flags: Int32 = O_WRONLY | O_CREAT | O_TRUNC, sync: Bool)
        throws(FileSystemError)
    {
        try writeFile(opened: try open(path, flags, 0o644), path: path, bytes, sync: sync)
    }

    /// ``writeFile(_:_:flags:sync:)`` of the entry `name` of the directory open as `directory`,
    /// whose whole path is `path` (see ``FileSystem/open(_:in:_:_:path:)``).
    package func writeFile(_ name: String, in directory: Int32, path: String, _ bytes: Data, flags: Int32, sync: Bool)
        throws(FileSystemError)
    {
        try writeFile(opened: try open(name, in: directory, flags, 0o644, path: path), path: path, bytes, sync: sync)
    }

    /// Writes `bytes` to the file just opened as `fd`, `fsync`s it when `sync` is set, and closes it.
    private func writeFile(opened fd: Int32, path: String, _ bytes: Data, sync: Bool) throws(FileSystemError) {
        try closing(fd, path: path) { fd throws(FileSystemError) in
            try writeAll(fd, bytes, path: path)
            if sync { try fsync(fd, path: path) }
        }
    }

    /// Runs `body` with `fd`, then closes it; when `body` throws, closes it quietly and rethrows,
    /// so that the error reported is the one that stopped the work. The one place a descriptor's
    /// use and release are paired.
    @inline(__always)
    package func closing<T>(_ fd: Int32, path: String, _ body: (Int32) throws(FileSystemError) -> T)
        throws(FileSystemError) -> T
    {
        let result: T
        do throws(FileSystemError) {
            result = try body(fd)
        } catch {
            try? close(fd, path: path)
            throw error
        }
        try close(fd, path: path)
        return result
    }

    /// Rewrites a file in place: writes `bytes` from offset 0 over the old contents, then cuts the
    /// file to length when it was longer. Unlike `O_TRUNC`, this never truncates to zero, which on
    /// ext4 (`auto_da_alloc`) would force a flush of each file at close and make batches as slow
    /// as single writes. Not atomic: only batches use it, under their undo journal.
    /// The file is the entry `name` of the directory open as `directory`, whose whole path is
    /// `path` (see ``FileSystem/open(_:in:_:_:path:)``): a batch opens its folder once.
    /// - Parameter previousLength: the file's length before, when known; `nil` always cuts.
    /// - Throws: ``FileSystemError/notRegularFile(operation:path:)``, writing nothing, when `path`
    ///   is a symbolic link or anything else that is not a regular file (see
    ///   ``openRegularFileForWriting(_:_:)``).
    package func overwriteFile(_ name: String, in directory: Int32, path: String, _ bytes: Data, previousLength: Int?)
        throws(FileSystemError)
    {
        let fd = try openRegularFileWithStatus(path: path, O_WRONLY | O_CREAT) { flags throws(FileSystemError) in
            try open(name, in: directory, flags, 0o644, path: path)
        }.fd
        try closing(fd, path: path) { fd throws(FileSystemError) in
            try writeAll(fd, bytes, path: path)
            if previousLength.map({ $0 > bytes.count }) ?? true {
                try truncate(fd, length: bytes.count, path: path)
            }
        }
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
    package func openRegularFileForWriting(_ path: String, _ flags: Int32) throws(FileSystemError) -> Int32 {
        try openRegularFile(path, flags)
    }

    /// Opens `path` with `flags` (plus `O_NOFOLLOW | O_NONBLOCK`), only if it is a regular file;
    /// see ``openRegularFileForWriting(_:_:)`` for why each flag is there.
    /// - Throws: ``FileSystemError/notRegularFile(operation:path:)`` for anything else.
    package func openRegularFile(_ path: String, _ flags: Int32) throws(FileSystemError) -> Int32 {
        try openRegularFileWithStatus(path, flags).fd
    }

    /// ``openRegularFile(_:_:)``, also returning the `fstat` it checked the file with, so that a
    /// caller that needs the length (the change log's append) does not ask the system twice.
    package func openRegularFileWithStatus(_ path: String, _ flags: Int32) throws(FileSystemError) -> (
        fd: Int32, status: FileStatus
    ) {
        try openRegularFileWithStatus(path: path, flags) { flags throws(FileSystemError) in try open(path, flags, 0o644)
        }
    }

    /// ``openRegularFileWithStatus(_:_:)`` with the file opened by `open`, given the flags.
    private func openRegularFileWithStatus(
        path: String, _ flags: Int32, opening open: (Int32) throws(FileSystemError) -> Int32
    ) throws(FileSystemError) -> (fd: Int32, status: FileStatus) {
        let fd: Int32
        do throws(FileSystemError) {
            fd = try open(flags | O_NOFOLLOW | O_NONBLOCK)
        } catch  where error.code == ELOOP || error.code == ENXIO {
            throw .notRegularFile(operation: "open", path: path)
        }
        let status: FileStatus
        do throws(FileSystemError) {
            status = try self.status(fd, path: path)
        } catch {
            try? close(fd, path: path)
            throw error
        }
        guard status.isRegularFile else {
            try? close(fd, path: path)
            throw .notRegularFile(operation: "open", path: path)
        }
        return (fd, status)
    }

    /// `fsync`s a directory, which makes the creation, renaming and removal of its entries durable.
    package func syncDirectory(_ path: String) throws(FileSystemError) {
        try closing(try open(path, O_RDONLY | O_DIRECTORY, 0), path: path) { fd throws(FileSystemError) in
            try fsync(fd, path: path)
        }
    }

    /// Removes `path` and everything under it, best effort: used only on garbage (trash and
    /// temporary files) that recovery will remove again if this stops half way.
    package func removeTreeIgnoringErrors(_ path: String) {
        if let names = try? contentsOfDirectory(path) {
            for name in names {
                let child = path + "/" + name
                if (try? unlink(child)) == nil { removeTreeIgnoringErrors(child) }
            }
        }
        try? removeDirectory(path)
    }
}
