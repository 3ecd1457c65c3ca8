import CDAOKitSupport
import DAOKitInternals

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The real file system, through POSIX calls; interrupted calls are retried (``systemCall(_:_:retrying:_:)``).
///
/// Unconfined (``init()``) it passes paths to the system as they are; that is for the store's
/// directory and its parents only. ``confined(to:)`` gives the one the store uses below its
/// directory, which never follows a link there (see ``FileSystem``).
package struct POSIXFileSystem: FileSystem {
    /// The store's directory, kept open; `nil` when unconfined.
    private let root: ConfinementRoot?

    /// A file system that passes every path to the system as it is.
    package init() {
        root = nil
    }

    private init(root: ConfinementRoot) {
        self.root = root
    }

    package func confined(to rootPath: String) throws(FileSystemError) -> any FileSystem {
        POSIXFileSystem(root: try ConfinementRoot(path: rootPath))
    }

    /// Whether `path` is below the confinement root: the part after the root (empty for the root
    /// itself); `nil` when unconfined or outside.
    @inline(__always)
    private func relative(_ path: String) -> Substring? {
        guard let root else { return nil }
        let utf8 = path.utf8
        guard root.isPrefix(of: path) else { return path == root.path ? "" : nil }
        // UTF-8 offsets, which are O(1) on native strings (character counts are not).
        return path[utf8.index(utf8.startIndex, offsetBy: root.prefixLength)...]
    }

    package func open(_ path: String, _ flags: Int32, _ mode: mode_t) throws(FileSystemError) -> Int32 {
        if let root, let relative = relative(path) {
            return try root.open(relative, flags, mode, operation: "open", reportedPath: path)
        }
        return try systemCall("open", path) { systemOpen(path, flags | O_CLOEXEC, mode) }
    }

    package func close(_ fd: Int32, path: String) throws(FileSystemError) {
        // Never retried: the descriptor is released even when close reports an error.
        let result = systemClose(fd)
        if result != 0 && errno != EINTR { throw FileSystemError(operation: "close", path: path, code: errno) }
    }

    package func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileSystemError)
        -> Int
    {
        try systemCall("read", path) { systemRead(fd, buffer.baseAddress, buffer.count) }
    }

    package func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        try systemCall("write", path) { systemWrite(fd, bytes.baseAddress, bytes.count) }
    }

    package func status(_ fd: Int32, path: String) throws(FileSystemError) -> FileStatus {
        var info = stat()
        _ = try systemCall("fstat", path) { fstat(fd, &info) }
        return FileStatus(info)
    }

    package func status(atPath path: String) throws(FileSystemError) -> FileStatus? {
        var info = stat()
        do throws(FileSystemError) {
            if let root, let relative = relative(path) {
                try root.withParent(of: relative, reportedPath: path) { (directory, name) throws(FileSystemError) in
                    _ = try systemCall("stat", path) { fstatat(directory, name, &info, AT_SYMLINK_NOFOLLOW) }
                }
            } else {
                _ = try systemCall("stat", path) { lstat(path, &info) }
            }
        } catch  where error.code == ENOENT {
            return nil
        }
        return FileStatus(info)
    }

    package func truncate(_ fd: Int32, length: Int, path: String) throws(FileSystemError) {
        _ = try systemCall("ftruncate", path) { ftruncate(fd, off_t(length)) }
    }

    package func fsync(_ fd: Int32, path: String) throws(FileSystemError) {
        _ = try systemCall("fsync", path) { systemFsync(fd) }
    }

    package func syncFileSystem(_ fd: Int32, path: String) throws(FileSystemError) -> Bool {
        guard let syncfs = Self.syncfs else { return false }
        _ = try systemCall("syncfs", path) { syncfs(fd) }
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
    package static func reportsWritebackErrorsFromSyncfs(kernelRelease release: String) -> Bool {
        let numbers = release.split(whereSeparator: { !$0.isNumber }).prefix(2).map { Int($0) ?? 0 }
        guard numbers.count == 2, release.first?.isNumber == true else { return false }
        return (numbers[0], numbers[1]) >= (5, 8)
    }

    /// The running kernel's release, as `uname -r` prints it.
    package static func kernelRelease() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "" }
        return withUnsafeBytes(of: &names.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    package func rename(_ source: String, _ destination: String) throws(FileSystemError) {
        if let root, let from = relative(source), let to = relative(destination), !from.isEmpty, !to.isEmpty {
            if let name = ConfinementRoot.name(of: to, inParentOf: from) {
                // The common case (a temporary file renamed over its record): one descriptor of
                // the folder serves both names.
                try root.withParent(of: from, reportedPath: source) { (directory, sourceName) throws(FileSystemError) in
                    _ = try systemCall("rename", destination, retrying: false) {
                        renameat(directory, sourceName, directory, name)
                    }
                }
                return
            }
            try root.withParent(of: from, reportedPath: source) {
                (sourceDirectory, sourceName) throws(FileSystemError) in
                try root.withParent(of: to, reportedPath: destination) { (directory, name) throws(FileSystemError) in
                    _ = try systemCall("rename", destination, retrying: false) {
                        renameat(sourceDirectory, sourceName, directory, name)
                    }
                }
            }
            return
        }
        _ = try systemCall("rename", destination, retrying: false) { systemRename(source, destination) }
    }

    package func open(_ name: String, in directory: Int32, _ flags: Int32, _ mode: mode_t, path: String)
        throws(FileSystemError) -> Int32
    {
        try Self.checkSingleComponent(name, operation: "open", path: path)
        return try systemCall("open", path) { openat(directory, name, flags | O_NOFOLLOW | O_CLOEXEC, mode) }
    }

    package func rename(_ source: String, to destination: String, in directory: Int32, path: String)
        throws(FileSystemError)
    {
        try Self.checkSingleComponent(source, operation: "rename", path: path)
        try Self.checkSingleComponent(destination, operation: "rename", path: path)
        _ = try systemCall("rename", path, retrying: false) { renameat(directory, source, directory, destination) }
    }

    package func unlink(_ name: String, in directory: Int32, path: String) throws(FileSystemError) {
        try Self.checkSingleComponent(name, operation: "unlink", path: path)
        _ = try systemCall("unlink", path, retrying: false) { unlinkat(directory, name, 0) }
    }

    /// Refuses a name that would reach outside the directory it is looked up in: one holding a
    /// `/`, and the empty name, `.` and `..`. The store never makes such names.
    @inline(__always)
    private static func checkSingleComponent(_ name: String, operation: String, path: String) throws(FileSystemError) {
        let isSingle =
            name.utf8.withContiguousStorageIfAvailable { bytes in
                !bytes.contains(UInt8(ascii: "/")) && !isEmptyOrDotName(bytes)
            } ?? (!name.utf8.contains(UInt8(ascii: "/")) && !isEmptyOrDotName(name.utf8))
        if !isSingle { throw FileSystemError(operation: operation, path: path, code: EXDEV) }
    }

    package func unlink(_ path: String) throws(FileSystemError) {
        try removeEntry(path, operation: "unlink", flags: 0) { systemUnlink(path) }
    }

    package func removeDirectory(_ path: String) throws(FileSystemError) {
        try removeEntry(path, operation: "rmdir", flags: AT_REMOVEDIR) { rmdir(path) }
    }

    /// `unlinkat` of the entry itself below the root (a link is removed, never followed), or `call`.
    private func removeEntry(_ path: String, operation: String, flags: Int32, _ call: () -> Int32)
        throws(FileSystemError)
    {
        if let root, let relative = relative(path), !relative.isEmpty {
            try root.withParent(of: relative, reportedPath: path) { (directory, name) throws(FileSystemError) in
                _ = try systemCall(operation, path, retrying: false) { unlinkat(directory, name, flags) }
            }
            return
        }
        _ = try systemCall(operation, path, retrying: false, call)
    }

    package func makeDirectory(_ path: String) throws(FileSystemError) {
        if let root, let relative = relative(path), !relative.isEmpty {
            try root.withParent(of: relative, reportedPath: path) { (directory, name) throws(FileSystemError) in
                _ = try systemCall("mkdir", path, retrying: false) { mkdirat(directory, name, 0o755) }
            }
            return
        }
        _ = try systemCall("mkdir", path, retrying: false) { mkdir(path, 0o755) }
    }

    package func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] {
        let fd = try open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0)
        guard let stream = fdopendir(fd) else {
            let code = errno
            _ = systemClose(fd)
            throw FileSystemError(operation: "opendir", path: path, code: code)
        }
        defer { closedir(stream) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw FileSystemError(operation: "readdir", path: path, code: errno) }
                return names
            }
            // Read the name in place, up to its NUL: the kernel's record is only as long as the
            // name needs (`d_reclen`), so copying the whole 256-byte `d_name` field out would read
            // past the end of it (AddressSanitizer reports a heap-buffer-overflow).
            let name = withUnsafePointer(to: &entry.pointee.d_name) { field in
                field.withMemoryRebound(to: CChar.self, capacity: 1) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
    }

    package func lock(_ fd: Int32, _ request: AdvisoryLockRequest, path: String) throws(FileSystemError) {
        let operation: Int32
        switch request {
        case .shared: operation = LOCK_SH
        case .exclusive: operation = LOCK_EX
        case .unlock: operation = LOCK_UN
        }
        // Work an `async` DAO call runs on DAOKit's threads may be cancelled while it waits for
        // another process: it polls instead of blocking (see ``LockWaitCancellation``).
        if request != .unlock, let cancellation = LockWaitCancellation.current {
            return try lockPolling(fd, operation, path: path, cancellation: cancellation)
        }
        _ = try systemCall("flock", path) { flock(fd, operation) }
    }

    /// Takes the lock without blocking, retrying every 1–16 ms until it is free or `cancellation`
    /// is set, which throws `ECANCELED` before anything was locked.
    private func lockPolling(_ fd: Int32, _ operation: Int32, path: String, cancellation: CancellationFlag)
        throws(FileSystemError)
    {
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

/// The store's directory, open for as long as a confined ``POSIXFileSystem`` uses it, and the
/// resolution of paths below it without following links.
///
/// The invariant everything below rests on: every path below the root is opened relative to this
/// descriptor, each component with `O_NOFOLLOW` (and `O_DIRECTORY` for all but the last), or in
/// one `openat2` call that refuses a link in any component. No call below the root is ever made
/// with a whole path string, which the kernel would resolve following links.
private final class ConfinementRoot: Sendable {
    let path: String
    /// `path` and a slash: what every path below the root starts with.
    let prefix: String
    /// `prefix`'s UTF-8 bytes, compared with every path the store passes.
    private let prefixBytes: [UInt8]
    /// `prefix`'s length in UTF-8 bytes.
    let prefixLength: Int
    let descriptor: Int32

    init(path: String) throws(FileSystemError) {
        self.path = path
        prefix = path.hasSuffix("/") ? path : path + "/"
        prefixBytes = Array(prefix.utf8)
        prefixLength = prefixBytes.count
        descriptor = try systemCall("open", path) { systemOpen(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0) }
    }

    /// Whether `path`'s bytes start with ``prefix``'s: one `memcmp` on a native string (every call
    /// makes this test, and comparing through the generic `UTF8View` cost far more); bytes, not
    /// characters, because the system compares bytes.
    @inline(__always)
    func isPrefix(of path: String) -> Bool {
        path.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.count >= prefixLength
                && prefixBytes.withUnsafeBytes { prefix in
                    memcmp(bytes.baseAddress!, prefix.baseAddress!, prefixLength) == 0
                }
        } ?? path.utf8.starts(with: prefixBytes)
    }

    deinit {
        _ = systemClose(descriptor)
    }

    /// Whether this kernel has `openat2` (Linux 5.6 and later, and not filtered out by a sandbox).
    private static let hasOpenat2: Bool = {
        let fd = daokit_openat_beneath(AT_FDCWD, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { return false }
        _ = systemClose(fd)
        return true
    }()

    /// Opens `relative` (empty: the root itself) below the root without following any link.
    /// - Throws: for a link (or non-directory) in a component before the last,
    ///   ``FileSystemError/notADirectory(operation:path:)`` naming that component; for a link as the
    ///   last component, `ELOOP` naming `reportedPath` (callers that need a regular file report
    ///   it as ``FileSystemError/notRegularFile(operation:path:)``), or, when `flags` asks for a
    ///   directory, `notADirectory` naming it; otherwise the system's error naming `reportedPath`.
    func open(_ relative: Substring, _ flags: Int32, _ mode: mode_t, operation: String, reportedPath: String)
        throws(FileSystemError) -> Int32
    {
        if relative.isEmpty {
            return try systemCall(operation, reportedPath) { openat(descriptor, ".", flags | O_CLOEXEC, mode) }
        }
        if Self.hasOpenat2 {
            while true {
                let fd = Self.withCString(relative) {
                    daokit_openat_beneath(descriptor, $0, flags | O_CLOEXEC | O_NOFOLLOW, UInt32(mode))
                }
                if fd >= 0 { return fd }
                let code = errno
                if code == EINTR { continue }
                // A link or a non-directory somewhere: the walk below finds which one and names it.
                guard code == ELOOP || code == EXDEV || code == ENOTDIR else {
                    throw FileSystemError(operation: operation, path: reportedPath, code: code)
                }
                break
            }
        }
        return try walk(relative, flags, mode, operation: operation, reportedPath: reportedPath)
    }

    /// Runs `body` with `text` as a C string: when `text` runs to the end of its string (every
    /// path a caller passes), a pointer into that string's own bytes, without copying it — this is
    /// on every read's path; otherwise a copy.
    @inline(__always)
    private static func withCString<T>(_ text: Substring, _ body: (UnsafePointer<CChar>) -> T) -> T {
        guard text.endIndex == text.base.endIndex else { return String(text).withCString(body) }
        let base = text.base
        let offset = base.utf8.distance(from: base.startIndex, to: text.startIndex)
        return base.withCString { body($0 + offset) }
    }

    /// ``open(_:_:_:operation:reportedPath:)`` one component at a time, with `openat`.
    ///
    /// Works on one NUL-terminated copy of the path's bytes, cutting each component in place, so
    /// that a walk costs its system calls and little else: it is every open's path where there
    /// is no `openat2` (all but Linux), and splitting the path into `String`s by `Character` cost
    /// more than the calls themselves.
    private func walk(_ relative: Substring, _ flags: Int32, _ mode: mode_t, operation: String, reportedPath: String)
        throws(FileSystemError) -> Int32
    {
        // Copied in one `memcpy` from a native string's storage: `Array(relative.utf8)` goes
        // through the generic sequence copy, byte by byte.
        var bytes = relative.utf8.withContiguousStorageIfAvailable(Array.init) ?? Array(relative.utf8)
        let count = bytes.count
        bytes.append(0)
        let slash = UInt8(ascii: "/")
        var directory = descriptor
        defer { if directory != descriptor { _ = systemClose(directory) } }
        var start = 0
        // Empty components (`a//b`, a trailing `/`) are skipped, as the system does.
        while start < count && bytes[start] == slash { start += 1 }
        while start < count {
            var end = start
            while end < count && bytes[end] != slash { end += 1 }
            var next = end
            while next < count && bytes[next] == slash { next += 1 }
            let isLast = next == count
            bytes[end] = 0
            // The path up to this component, for errors only.
            func walked() -> String { prefix + String(decoding: relative.utf8.prefix(end), as: UTF8.self) }
            // The store's names never are `.` or `..` (journal names are checked); should one
            // come, it is refused rather than allowed to climb out of the root.
            if isEmptyOrDotName(bytes[start..<end]) {
                throw FileSystemError(operation: operation, path: reportedPath, code: EXDEV)
            }
            let componentFlags = isLast ? flags | O_NOFOLLOW : O_RDONLY | O_DIRECTORY | O_NOFOLLOW
            let opened: Int32
            do throws(FileSystemError) {
                opened = try systemCall(operation, reportedPath) {
                    bytes.withUnsafeBufferPointer { buffer in
                        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: count + 1) { base in
                            openat(directory, base + start, componentFlags | O_CLOEXEC, mode)
                        }
                    }
                }
            } catch {
                // O_NOFOLLOW fails with ELOOP on a link, O_DIRECTORY with ENOTDIR on a link or any
                // other non-directory. A link to a regular file as the last component is the
                // caller's to report (it knows whether a record or `.journal` was meant).
                guard error.code == ELOOP || error.code == ENOTDIR, !isLast || flags & O_DIRECTORY != 0 else {
                    throw isLast ? error : FileSystemError(operation: operation, path: walked(), code: error.code)
                }
                var info = stat()
                let isFile =
                    bytes.withUnsafeBufferPointer { buffer in
                        buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: count + 1) { base in
                            fstatat(directory, base + start, &info, AT_SYMLINK_NOFOLLOW) == 0
                        }
                    } && info.st_mode & S_IFMT == S_IFREG
                if isFile { throw FileSystemError(operation: operation, path: walked(), code: ENOTDIR) }
                throw .notADirectory(operation: operation, path: walked())
            }
            if directory != descriptor { _ = systemClose(directory) }
            if isLast {
                directory = descriptor
                return opened
            }
            directory = opened
            start = next
        }
        throw FileSystemError(operation: operation, path: reportedPath, code: ENOENT)
    }

    /// The last component of `path` when it lies in the same directory as `sibling` (both
    /// relative to the root); `nil` when their parents differ.
    static func name(of path: Substring, inParentOf sibling: Substring) -> String? {
        let pathSlash = path.utf8.lastIndex(of: UInt8(ascii: "/"))
        let siblingSlash = sibling.utf8.lastIndex(of: UInt8(ascii: "/"))
        switch (pathSlash, siblingSlash) {
        case (nil, nil):
            return String(path)
        // Bytes, not `==` on strings: names that are canonically equivalent but spelled with
        // different bytes are different folders to the system.
        case (let pathSlash?, let siblingSlash?)
        where path.utf8[..<pathSlash].elementsEqual(sibling.utf8[..<siblingSlash]):
            return String(path[path.index(after: pathSlash)...])
        default:
            return nil
        }
    }

    /// Runs `body` with a descriptor of the directory holding the last component of `relative`,
    /// opened without following links, and that component's name.
    func withParent<T>(
        of relative: Substring, reportedPath: String,
        _ body: (Int32, String) throws(FileSystemError) -> T
    ) throws(FileSystemError) -> T {
        guard let slash = relative.utf8.lastIndex(of: UInt8(ascii: "/")) else {
            return try body(descriptor, String(relative))
        }
        let name = String(relative[relative.index(after: slash)...])
        let parent = try open(
            relative[..<slash], O_RDONLY | O_DIRECTORY, 0, operation: "open", reportedPath: reportedPath)
        defer { _ = systemClose(parent) }
        return try body(parent, name)
    }
}

/// Whether the name `bytes` is empty, `.` or `..`: no entry of its own, but the directory itself
/// or its parent, which a name relative to a directory descriptor must never reach.
@inline(__always)
private func isEmptyOrDotName(_ bytes: some Collection<UInt8>) -> Bool {
    bytes.count <= 2 && bytes.allSatisfy { $0 == UInt8(ascii: ".") }
}

// The C functions under names the protocol's methods do not shadow (file scope resolves to C).
private func systemOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(fd, buffer, count)
}
private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int { write(fd, buffer, count) }
private func systemFsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func systemRename(_ source: String, _ destination: String) -> Int32 { rename(source, destination) }
private func systemUnlink(_ path: String) -> Int32 { unlink(path) }
