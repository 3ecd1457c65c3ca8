#if canImport(Glibc)
    import DAOKitInternals
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// What `fstat`/`lstat` says about a path.
package struct FileStatus: Sendable, Equatable {
    package var isDirectory: Bool
    /// Whether it is a regular file (`S_IFREG`): not a directory, link, FIFO, socket or device.
    package var isRegularFile: Bool
    package var size: Int
    /// How many directory entries name the file (`st_nlink`): 0 once it has been removed or
    /// replaced by a rename, while a descriptor still keeps it open.
    package var linkCount: Int
    /// Whether it is a symbolic link (only `status(atPath:)` can say so: it never follows one).
    package var isSymbolicLink = false

    package init(isDirectory: Bool, isRegularFile: Bool, size: Int, linkCount: Int, isSymbolicLink: Bool = false) {
        self.isDirectory = isDirectory
        self.isRegularFile = isRegularFile
        self.size = size
        self.linkCount = linkCount
        self.isSymbolicLink = isSymbolicLink
    }
}

extension FileStatus {
    init(_ info: stat) {
        self.init(
            isDirectory: (info.st_mode & S_IFMT) == S_IFDIR, isRegularFile: (info.st_mode & S_IFMT) == S_IFREG,
            size: Int(info.st_size), linkCount: Int(info.st_nlink), isSymbolicLink: (info.st_mode & S_IFMT) == S_IFLNK)
    }
}

/// How ``FileSystem/lock(_:_:path:)`` changes the advisory lock on a file.
package enum AdvisoryLockRequest: Sendable {
    case shared, exclusive, unlock
}

/// The handful of system calls the file store uses, and nothing else.
///
/// Every call goes through this seam, so that the tests can implement it to make any one of them
/// fail and check that the store keeps its previous state. Each method is one call; paths are
/// absolute (or as the user gave the store's directory) and are passed even to descriptor-based
/// calls, so that errors can name the file.
///
/// **Confinement.** A file system returned by ``confined(to:)`` never follows a symbolic link
/// below the store's directory: every path under it is resolved component by component from a
/// descriptor of that directory (`openat2` with `RESOLVE_NO_SYMLINKS` on Linux, `openat` with
/// `O_NOFOLLOW | O_DIRECTORY` per component elsewhere), and path calls act on the last component
/// itself (`unlinkat`, `renameat`, `mkdirat`, `fstatat` with `AT_SYMLINK_NOFOLLOW`). So a link
/// planted anywhere inside the store — as a record, an entity folder, `.journal`, `.lock` or a
/// temporary file — is refused (``FileSystemError/Refusal``) or, where a call acts on the entry
/// itself (`status`, `unlink`), seen as what it is. The directory itself is opened once, as given,
/// following links: the user chose it.
package protocol FileSystem: Sendable {
    /// This file system with every path under `root` confined to it (see above).
    /// - Throws: the error of opening `root`, which must be a directory.
    func confined(to root: String) throws(FileSystemError) -> any FileSystem
    func open(_ path: String, _ flags: Int32, _ mode: mode_t) throws(FileSystemError) -> Int32
    func close(_ fd: Int32, path: String) throws(FileSystemError)
    /// Reads up to `buffer.count` bytes; 0 at end of file.
    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileSystemError) -> Int
    /// Writes some of `bytes`; returns how many (callers loop).
    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) -> Int
    func status(_ fd: Int32, path: String) throws(FileSystemError) -> FileStatus
    /// What is at `path` itself, not following a symbolic link there (`lstat`); `nil` when nothing is.
    func status(atPath path: String) throws(FileSystemError) -> FileStatus?
    /// Sets the file's length (`ftruncate`).
    func truncate(_ fd: Int32, length: Int, path: String) throws(FileSystemError)
    func fsync(_ fd: Int32, path: String) throws(FileSystemError)
    /// Flushes every file and directory of the file system holding `fd` (Linux `syncfs`).
    /// Returns `false`, doing nothing, where the platform has no such call.
    func syncFileSystem(_ fd: Int32, path: String) throws(FileSystemError) -> Bool
    func rename(_ source: String, _ destination: String) throws(FileSystemError)
    func unlink(_ path: String) throws(FileSystemError)
    /// Opens the entry `name` of the directory open as `directory` (`openat`), never following a
    /// link there (`O_NOFOLLOW` is added); `path` is the entry's whole path, which errors name.
    /// The directory was itself opened through ``open(_:_:_:)``, confined like any other path, so
    /// one name inside it stays confined too; a writer that works on several entries of one folder
    /// opens it once and resolves none of their paths again.
    /// - Throws: `EXDEV`, opening nothing, when `name` is not a single component (it holds a `/`,
    ///   or is empty, `.` or `..`); otherwise as ``open(_:_:_:)``.
    func open(_ name: String, in directory: Int32, _ flags: Int32, _ mode: mode_t, path: String) throws(FileSystemError)
        -> Int32
    /// Renames the entry `source` of `directory` to `destination` in the same directory
    /// (`renameat`), replacing what `destination` named, itself and not what a link there points
    /// to; `path` is the destination's whole path, which errors name.
    /// - Throws: as ``open(_:in:_:_:path:)`` for names that are not single components.
    func rename(_ source: String, to destination: String, in directory: Int32, path: String) throws(FileSystemError)
    /// Removes the entry `name` of `directory` (`unlinkat`; a link is removed, never followed);
    /// `path` is its whole path, which errors name.
    /// - Throws: as ``open(_:in:_:_:path:)`` for names that are not single components.
    func unlink(_ name: String, in directory: Int32, path: String) throws(FileSystemError)
    func makeDirectory(_ path: String) throws(FileSystemError)
    func removeDirectory(_ path: String) throws(FileSystemError)
    /// The names in a directory, without `.` and `..`.
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String]
    func lock(_ fd: Int32, _ request: AdvisoryLockRequest, path: String) throws(FileSystemError)
}
