#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed file-system call: which call, on which path, and the `errno` it set.
///
/// `FileStorageContext` turns it into a `StorageError` of code `.io` whose detail is ``message``,
/// whose location is ``path`` and whose `posixCode` is ``code``; one the store refused
/// (``refusal``) becomes `.corruptRecord` when it concerns a record or an entity folder.
package struct FileSystemError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Why the store refused a path without making the call: something planted inside it that it
    /// never follows or opens.
    package enum Refusal: Sendable, Equatable {
        /// A symbolic link, FIFO, socket or device where the store needs a regular file.
        case notRegularFile
        /// A symbolic link (or anything else that is not a directory) where the path needs a
        /// directory inside the store: following it could read or write outside the store.
        case notADirectory
    }

    /// The call that failed, such as `open` or `rename`.
    package let operation: String
    /// The path the call was about; for a ``Refusal``, the entry refused.
    package let path: String
    /// The `errno` value.
    package let code: Int32
    /// Set when the store refused `path` rather than the system failing the call.
    package var refusal: Refusal?

    package init(operation: String, path: String, code: Int32, refusal: Refusal? = nil) {
        self.operation = operation
        self.path = path
        self.code = code
        self.refusal = refusal
    }

    /// An error for a path that holds something other than a regular file where the store needs
    /// one. The store never follows such a thing: a symbolic link could point outside the store,
    /// and a FIFO would block the calling thread, and with it every writer, forever.
    package static func notRegularFile(operation: String, path: String) -> FileSystemError {
        FileSystemError(operation: operation, path: path, code: EINVAL, refusal: .notRegularFile)
    }

    /// An error for a component inside the store, on the way to another path, that is a symbolic
    /// link or another non-directory the path cannot go through without leaving the store.
    package static func notADirectory(operation: String, path: String) -> FileSystemError {
        FileSystemError(operation: operation, path: path, code: ENOTDIR, refusal: .notADirectory)
    }

    /// Whether the store refused `path` as not a regular file (see ``notRegularFile(operation:path:)``).
    package var isNotRegularFile: Bool { refusal == .notRegularFile }

    /// `<operation> failed: <strerror(code)>`, or `<operation> refused: not a regular file`, or
    /// `<operation> refused: a symbolic link or other non-directory inside the store`.
    package var message: String {
        switch refusal {
        case .notRegularFile: return "\(operation) refused: not a regular file"
        case .notADirectory:
            return "\(operation) refused: not a directory (a symbolic link or other entry the store never follows)"
        case nil: return "\(operation) failed: \(String(cString: strerror(code)))"
        }
    }

    package var description: String { "\(message) (\(path))" }

    /// What is wrong, without the call: the system's wording ("Permission denied"), or why the
    /// store refused the path. What a person reading `dao`'s one-line errors needs.
    package var reason: String {
        switch refusal {
        case .notRegularFile: return "not a regular file"
        case .notADirectory: return "a symbolic link or other non-directory, which the store never follows"
        case nil: return String(cString: strerror(code))
        }
    }

    /// Whether the call failed because this process may not change the file system there:
    /// permission denied (`EACCES`, `EPERM`) or a read-only file system (`EROFS`). The store then
    /// still reads, but leaves repairs such as rolling back a journal to a process that may write.
    package var deniesWriteAccess: Bool { code == EACCES || code == EPERM || code == EROFS }

    /// Whether the call failed because the file system has no room for what it would write: no
    /// free space (`ENOSPC`) or the user's quota used up (`EDQUOT`). Like a denied write, this
    /// leaves repairs for later: the store reads without them until a write finds room.
    package var lacksSpace: Bool { code == ENOSPC || code == EDQUOT }

    /// Whether a repair that writes (rolling back a journal) must wait: ``deniesWriteAccess`` or
    /// ``lacksSpace``. Reads then go on without it.
    package var postponesRepair: Bool { deniesWriteAccess || lacksSpace }
}
