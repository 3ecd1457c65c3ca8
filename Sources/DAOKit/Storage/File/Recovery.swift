import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Putting the store back into a whole state after a crash. Every step runs under the exclusive
/// lock and is idempotent, so a crash during recovery is recovered by the next one.
extension FileStorageContext {
    /// Full recovery, done once when the store is opened: resolve the journal, then remove the
    /// temporary files and trash directories that crashed writers left behind.
    func recoverOnOpen() throws {
        try recoverJournal()
        for name in try fileSystem.contentsOfDirectory(rootPath) {
            let path = rootPath + "/" + name
            if name.hasPrefix(".trash-") {
                fileSystem.removeTreeIgnoringErrors(path)
                continue
            }
            guard !name.hasPrefix(".") else { continue }
            guard let children = try fileSystem.contentsIfDirectory(path) else { continue }
            for child in children where child.hasPrefix(".tmp-") {
                try fileSystem.unlinkIfPresent(path + "/" + child)
            }
        }
    }

    /// Whether a journal holds a batch that did not commit (it is empty between batches).
    func journalNeedsRecovery() throws(FileSystemError) -> Bool {
        (try fileSystem.status(atPath: journalPath)?.size ?? 0) > 0
    }

    /// Rolls back the batch a complete journal describes; discards an incomplete one, which a crash
    /// tore before any record was touched.
    func recoverJournal() throws {
        guard try journalNeedsRecovery() else { return }
        guard case let .bytes(data) = try fileSystem.readContents(of: journalPath) else { return }
        if let journal = Journal(serialized: data) {
            try rollBack(journal)
        }
        try clearJournal()
    }

    /// Puts every file of the journal back as it was before the batch, and makes that durable.
    /// Rewriting the same old contents again, or removing an already removed file, changes nothing,
    /// which is what makes it safe to repeat.
    func rollBack(_ journal: Journal) throws {
        let directoryPath = rootPath + "/" + journal.directoryName
        var written: [String] = []
        if journal.entries.contains(where: { $0.previousContents != nil }) {
            try ensureDirectory(directoryPath)
        }
        for entry in journal.entries {
            let path = directoryPath + "/" + entry.fileName
            if let previous = entry.previousContents {
                try fileSystem.overwriteFile(path, previous, previousLength: nil)
                written.append(path)
            } else {
                try fileSystem.unlinkIfPresent(path)
            }
        }
        try makeDurable(files: written, directories: [directoryPath])
    }

    /// Empties the journal durably: the commit point of a batch, and the end of a recovery.
    func clearJournal() throws(FileSystemError) {
        let path = journalPath
        let fd: Int32
        do throws(FileSystemError) {
            fd = try fileSystem.open(path, O_WRONLY | O_TRUNC, 0o644)
        } catch where error.code == ENOENT {
            return
        }
        do throws(FileSystemError) {
            try fileSystem.fsync(fd, path: path)
        } catch {
            try? fileSystem.close(fd, path: path)
            throw error
        }
        try fileSystem.close(fd, path: path)
    }

    /// Makes the written files and the directories' entries durable: one `syncfs` of the whole file
    /// system where the platform has it (Linux), else an `fsync` per file and per directory.
    func makeDurable(files: [String], directories: [String]) throws(FileSystemError) {
        let fd = try fileSystem.open(rootPath, O_RDONLY | O_DIRECTORY, 0)
        let flushed: Bool
        do throws(FileSystemError) {
            flushed = try fileSystem.syncFileSystem(fd, path: rootPath)
        } catch {
            try? fileSystem.close(fd, path: rootPath)
            throw error
        }
        try fileSystem.close(fd, path: rootPath)
        if flushed { return }
        for path in files {
            let file = try fileSystem.open(path, O_RDONLY, 0)
            do throws(FileSystemError) {
                try fileSystem.fsync(file, path: path)
            } catch {
                try? fileSystem.close(file, path: path)
                throw error
            }
            try fileSystem.close(file, path: path)
        }
        for directory in directories { try fileSystem.syncDirectory(directory) }
    }
}
