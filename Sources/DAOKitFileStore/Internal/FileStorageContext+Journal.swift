import DAOKit
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

/// The store's undo journal on disk (its format is ``Journal``): written before a batch touches a
/// record, emptied to commit, and measured to learn whether a batch stopped half way. Rolling it
/// back is recovery's (see `FileStorageContext+Recovery.swift`).
extension FileStorageContext {
    /// Writes the journal and makes it durable. The journal file is kept between batches (empty when
    /// idle), so that neither starting nor committing a batch changes the directory.
    ///
    /// Safety: `.journal` is opened through ``FileSystem/openRegularFileForWriting(_:_:)``, so a
    /// symbolic link there is refused before `O_TRUNC` could empty its target outside the store.
    func writeJournal(_ journal: Journal) throws(FileSystemError) {
        let path = journalPath
        let (fd, created) = try openJournalEmptied()
        try fileSystem.closing(fd, path: path) { fd throws(FileSystemError) in
            try fileSystem.writeAll(fd, journal.serialized(), path: path)
            try fileSystem.fsync(fd, path: path)
        }
        if created { try fileSystem.syncDirectory(rootPath) }
    }

    /// Opens `.journal` for writing, emptied, creating it when it is missing; `created` says
    /// whether it was, so that the caller makes the store's directory durable too. Shared by a
    /// batch's journal and a reset's intent.
    ///
    /// Safety: opened through ``FileSystem/openRegularFileForWriting(_:_:)``, so a symbolic link
    /// there is refused before `O_TRUNC` could empty its target outside the store.
    func openJournalEmptied() throws(FileSystemError) -> (fd: Int32, created: Bool) {
        do throws(FileSystemError) {
            return (try fileSystem.openRegularFileForWriting(journalPath, O_WRONLY | O_TRUNC), false)
        } catch  where error.code == ENOENT {
            return (try fileSystem.openRegularFileForWriting(journalPath, O_WRONLY | O_CREAT | O_TRUNC), true)
        }
    }

    /// Empties the journal durably: the commit point of a batch, and the end of a recovery.
    func clearJournal() throws(FileSystemError) {
        let path = journalPath
        let fd: Int32
        do throws(FileSystemError) {
            fd = try fileSystem.openRegularFileForWriting(path, O_WRONLY | O_TRUNC)
        } catch  where error.code == ENOENT {
            return
        }
        try fileSystem.closing(fd, path: path) { fd throws(FileSystemError) in try fileSystem.fsync(fd, path: path) }
    }

    /// Whether a journal holds a batch that did not commit (it is empty between batches). Every
    /// write asks, under the exclusive lock: through ``journalProbe``'s kept descriptor, as readers
    /// do, one `fstat` with no path to resolve.
    func journalNeedsRecovery() throws(FileSystemError) -> Bool {
        try journalProbe.journalSize() > 0
    }
}
