import DAOKitInternals
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells readers how many bytes `.journal` holds, with one `fstat` of a descriptor kept open
/// instead of a `stat` of its path on every read.
///
/// Every read asks this under the shared lock (see `FileStorageContext.readCondition()`): a
/// non-empty journal means a writer died in the middle of a batch, and its records must be rolled
/// back before anyone reads them. Looking the path up costs more than the rest of the locking
/// together, and the answer is about one file that DAOKit never replaces: `writeJournal` and
/// `clearJournal` open `.journal` by path and rewrite or truncate it in place, and create it only
/// when it is missing. So the descriptor of the first `.journal` found keeps telling its size, in
/// every process, for as long as that file is the one the path names.
///
/// What makes this as safe as the `stat` it replaces:
/// - the size is the inode's, which every process's writes and truncations update at once, so
///   `fstat` on any descriptor sees what `stat` on the path would (on local file systems, which
///   `flock` needs anyway);
/// - the caller holds the store's lock (shared or exclusive), and every change to the journal
///   happens under the exclusive lock, so it cannot change between `open` and `fstat`;
/// - if anything removes `.journal` or renames another file over it (a user, a tool, a copy with
///   `Data.write(options: .atomic)`), the kept file's link count drops to 0, and the probe drops
///   the descriptor and looks the path up again on that same call;
/// - when there is no `.journal` yet (no batch has ever run), or it cannot be opened, every call
///   looks the path up, as before, so a journal created later by another process is seen on the
///   first read after it appears.
///
/// The one change it cannot see is `.journal` renamed to another name and a new one created in its
/// place: the kept file still has a link. The locking already rests on nobody doing that to the
/// store's own files while it is open — every process keeps `.lock` open the same way, and two
/// processes holding different `.lock` files would not exclude each other — and DAOKit never does.
package final class JournalProbe: Sendable {
    package let path: String
    private let fileSystem: any FileSystem
    /// The descriptor of `.journal` as last found, `nil` before it is found. Its `Sendable`
    /// conformance is sound: the state is a plain integer, only touched under the lock.
    private let descriptor = Locked<Int32?>(nil)

    package init(path: String, fileSystem: any FileSystem) {
        self.path = path
        self.fileSystem = fileSystem
    }

    deinit {
        if let fd = descriptor.withLock({ $0 }) { try? fileSystem.close(fd, path: path) }
    }

    /// The size of `.journal` in bytes; 0 when there is none. Call it only while holding the
    /// store's lock, shared or exclusive.
    /// - Throws: the failed call's error when the journal cannot be examined.
    package func journalSize() throws(FileSystemError) -> Int {
        let result: Result<Int, FileSystemError> = descriptor.withLock { descriptor in
            do throws(FileSystemError) {
                return .success(try size(keeping: &descriptor))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func size(keeping descriptor: inout Int32?) throws(FileSystemError) -> Int {
        if let fd = descriptor {
            let status = try fileSystem.status(fd, path: path)
            if status.linkCount > 0 { return status.size }
            // Removed or replaced: whatever the path names now is the journal.
            descriptor = nil
            try? fileSystem.close(fd, path: path)
        }
        let fd: Int32
        do throws(FileSystemError) {
            // Never blocks on a FIFO planted as `.journal` (it reads as empty); a link is not kept
            // open but measured through `stat` below, as recovery measures it.
            fd = try fileSystem.open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW, 0)
        } catch  where error.code == ENOENT {
            return 0
        } catch {
            // Not readable (a stricter mode set by hand), or a link, never followed: `lstat` still
            // tells that something is there, and recovery then reports what.
            return try fileSystem.status(atPath: path)?.size ?? 0
        }
        let status: FileStatus
        do throws(FileSystemError) {
            status = try fileSystem.status(fd, path: path)
        } catch {
            try? fileSystem.close(fd, path: path)
            throw error
        }
        descriptor = fd
        return status.size
    }
}
