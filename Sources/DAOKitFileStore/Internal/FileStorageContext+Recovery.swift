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

/// Putting the store back into a whole state after a crash. Every step runs under the exclusive
/// lock and is idempotent, so a crash during recovery is recovered by the next one.
///
/// A process without write access (a read-only store) cannot recover, and need not for most reads:
/// - leftover temporary files and trash directories are invisible to readers, so they stay until
///   a process that may write opens the store;
/// - a torn journal was cut short before its batch touched any record, so every record reads as
///   it is;
/// - a complete journal means its batch stopped half way, so the records of that one entity type
///   may be half-written: readers take every file the journal names from the journal (what it
///   held before the batch) and the others as they are, which is the committed state.
/// The same holds when recovery fails for lack of free space (`ENOSPC`, `EDQUOT`): a full disk
/// never blocks reading. Writes try to recover first, as always, and so fail with the system's
/// error and the path until the disk has room again; the first that succeeds completes recovery.
extension FileStorageContext {
    /// Full recovery, done once when the store is opened: resolve the journal, then remove the
    /// temporary files and trash directories that crashed writers left behind, and finally make
    /// every entity directory's entries and the store directory's entries durable. Without write
    /// access it leaves what it cannot change, as described above.
    ///
    /// The final `fsync`s close a gap the writers leave on purpose: a writer `fsync`s the store's
    /// directory only right after it created an entity directory or `.journal` itself. Killed
    /// between that creation and that `fsync`, it leaves an entry that later writers find
    /// existing and never `fsync` — so a power loss could still drop it, with every record it
    /// holds. Recovery holds the exclusive lock, so syncing here, once per open, makes whatever
    /// any earlier writer created durable before this context writes on top of it.
    /// - Throws: a ``StorageError`` of kind `.corruptRecord` naming `.journal`, changing nothing,
    ///   when the journal is whole but names files the store never writes (see
    ///   ``recoverJournal()``).
    func recoverOnOpen() throws {
        do {
            try recoverJournal()
        } catch let error as FileSystemError where error.postponesRepair {
            rememberRecoveryRefused(error)
        }
        var formats = FormatCensus(format: format)
        for name in try fileSystem.contentsOfDirectory(rootPath) {
            let path = rootPath + "/" + name
            if name.hasPrefix(FileStoreLayout.trashDirectoryPrefix) {
                fileSystem.removeTreeIgnoringErrors(path)
                continue
            }
            guard !name.hasPrefix(".") else { continue }
            guard let children = try fileSystem.contentsIfDirectory(path) else { continue }
            for child in children where child.hasPrefix(FileStoreLayout.temporaryFilePrefix) {
                guard try removeLeftover(path + "/" + child) else { break }
            }
            for child in children where !child.hasPrefix(".") { formats.count(name + "/" + child) }
            try syncDirectoryOnOpen(path)
        }
        try syncDirectoryOnOpen(rootPath)
        if let problem = formats.problem {
            throw StorageError(.wrongFormat(problem), location: rootPath)
        }
    }

    /// `fsync`s a directory for ``recoverOnOpen()``. Where that is refused for lack of write
    /// access (some file systems reject `fsync` on a read-only mount), there is nothing this
    /// process could have made durable anyway, and reads go on.
    private func syncDirectoryOnOpen(_ path: String) throws(FileSystemError) {
        do {
            try fileSystem.syncDirectory(path)
        } catch  where error.deniesWriteAccess || error.code == EINVAL {
        }
    }

    /// Removes a crashed writer's temporary file; `false` when this process may not, as in a
    /// read-only store, where it is harmless: readers never look at temporary files.
    private func removeLeftover(_ path: String) throws(FileSystemError) -> Bool {
        do {
            try fileSystem.unlinkIfPresent(path)
            return true
        } catch  where error.deniesWriteAccess {
            return false
        }
    }

    /// What readers may rely on, decided by the first of them under the shared lock; `nil` when a
    /// journal must be recovered first. Once this process has been refused the recovery (see
    /// ``recoveryRefusal``), readers do without it rather than try again on every read, until the
    /// journal is found empty (another process recovered it, or a write of this one did).
    ///
    /// It reads the journal's size through ``journalProbe`` (an `fstat` of a descriptor kept open)
    /// rather than by path: the journal cannot change while the shared lock is held, and a
    /// non-empty one is all a crashed batch leaves for readers to find.
    func readCondition() throws(FileSystemError) -> ReadCondition? {
        guard try journalProbe.journalSize() > 0 else {
            rememberRecoveryRefused(nil)
            return .consistent
        }
        guard let refusal = recoveryRefusal.withLock({ $0 }) else { return nil }
        guard case .bytes(let data) = try fileSystem.readContents(of: journalPath),
            let journal = Journal(serialized: data)
        else {
            return .consistent
        }
        // A journal the store could not have written: let recovery report it (it throws before
        // changing anything, even without write access).
        guard journal.nameProblem(fileExtensions: [fileExtension]) == nil else { return nil }
        return .unfinishedBatch(journal, cause: refusal)
    }

    /// Recovers the journal for readers, under the exclusive lock. Without write access or free
    /// space it remembers the refusal instead of throwing, so that readers go on without recovery
    /// (reading around the journal) and try no write again until the journal is found empty.
    func recoverForReaders() throws {
        do {
            try lock.withExclusiveLock { try recoverJournal() }
            rememberRecoveryRefused(nil)
        } catch let error as FileSystemError where error.postponesRepair {
            rememberRecoveryRefused(error)
        }
    }

    /// Notes that recovery needs write access this process lacks (`nil`: it succeeded).
    func rememberRecoveryRefused(_ error: FileSystemError?) {
        recoveryRefusal.withLock { $0 = error }
    }

    /// Rolls back the batch a complete journal describes; discards an incomplete one, which a crash
    /// tore before any record was touched.
    ///
    /// Safety: the journal's names are checked before anything is changed
    /// (``Journal/nameProblem(fileExtensions:)``). A whole journal naming a path the store never
    /// writes (`..`, `/`, a hidden or foreign name) is corrupt or crafted: rolling it back could
    /// create, overwrite or remove files outside the store, and discarding it could lose the
    /// only copy of records a real batch was rewriting. So it is left exactly as found, and every
    /// open, read and write reports it until someone inspects it (`dao verify` lists it) and
    /// removes it by hand.
    /// - Throws: ``StorageError`` of kind `.corruptRecord` naming `.journal` for such a journal;
    ///   ``FileSystemError`` of `.journal` when it is not a regular file (a link is never followed)
    ///   or the rollback fails.
    func recoverJournal() throws {
        guard try journalNeedsRecovery() else { return }
        let data: Data
        switch try fileSystem.readContents(of: journalPath) {
        case .absent: return
        case .directory, .notRegularFile: throw FileSystemError.notRegularFile(operation: "open", path: journalPath)
        case .bytes(let bytes): data = bytes
        }
        if let journal = Journal(serialized: data) {
            if let problem = journal.nameProblem(fileExtensions: [fileExtension]) {
                throw StorageError(
                    .corruptRecord(
                        "the journal is whole but \(problem), so it was neither rolled back nor discarded; "
                            + "inspect it (dao verify) and remove it by hand"),
                    location: journalPath)
            }
            try rollBack(journal)
        } else if ResetIntent.matches(data) {
            try rollResetForward()
        }
        try clearJournal()
    }

    /// Puts every file of the journal back as it was before the batch (or the transaction, whose
    /// journal spans several entity directories), and makes that durable. Rewriting the same old
    /// contents again, or removing an already removed file, changes nothing, which is what makes
    /// it safe to repeat.
    func rollBack(_ journal: Journal) throws {
        var groups: [(directoryName: String, entries: [Journal.Entry])] = []
        for name in journal.directoryNames {
            let entries = journal.entries(inDirectory: name)
            if entries.isEmpty { continue }
            groups.append((name, entries))
            let directoryPath = rootPath + "/" + name
            if entries.contains(where: { $0.previousContents != nil }) {
                try ensureDirectory(directoryPath)
            } else if try fileSystem.status(atPath: directoryPath) == nil {
                // Only removals, and no folder: nothing to remove (a transaction's first write of a
                // type that never reached its folder).
                continue
            }
            try fileSystem.closing(
                try fileSystem.open(directoryPath, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0), path: directoryPath
            ) {
                directory throws(FileSystemError) in
                try applyInPlace(
                    entries.map { ($0.fileName, $0.previousContents, nil) }, in: directory,
                    directoryPath: directoryPath)
            }
        }
        // Query caches in every process reread what the rollback put back. Logged after the files
        // (nobody reads in between: this holds the exclusive lock), so that a full disk stops a
        // rollback before it appends anything and readers then read around the journal without
        // having written; and before the journal is cleared, so that a crash in between repeats both.
        try changeLog.append(records: groups.map { ($0.directoryName, $0.entries.map(\.fileName)) })
    }

    /// Rewrites each file of the entity folder open as `directory` in place with its contents (see
    /// ``FileSystem/overwriteFile(_:in:path:_:previousLength:)``), or removes it where the contents
    /// are `nil`, then makes it all durable: the middle of a batch, and the whole of a rollback,
    /// which puts the journal's old contents back the same way. Every file is named relative to
    /// the folder's descriptor, so no path is resolved again per file.
    func applyInPlace(
        _ files: [(fileName: String, contents: Data?, previousLength: Int?)], in directory: Int32, directoryPath: String
    ) throws(FileSystemError) {
        var written: [String] = []
        for file in files {
            let path = directoryPath + "/" + file.fileName
            if let contents = file.contents {
                try fileSystem.overwriteFile(
                    file.fileName, in: directory, path: path, contents, previousLength: file.previousLength)
                written.append(file.fileName)
            } else {
                try fileSystem.unlinkIfPresent(file.fileName, in: directory, path: path)
            }
        }
        try makeDurable(fileNames: written, in: directory, directoryPath: directoryPath)
    }

    /// Makes the written files and the directories' entries durable.
    ///
    /// A large batch is flushed with one `syncfs` of the whole file system where the platform has
    /// it (Linux), because one call is much cheaper than an `fsync` per file. But `syncfs` also
    /// waits for every other process's unwritten data on that file system, so a small batch (and
    /// a batch of deletions, which writes no file) `fsync`s its own files and directories instead,
    /// and does not pay for its neighbours. ``POSIXFileSystem`` offers `syncfs` only on kernels
    /// that report write-back errors through it (Linux 5.8 and later); before that it could return
    /// success after the data failed to reach the disk, and the batch would commit anyway.
    func makeDurable(fileNames: [String], in directory: Int32, directoryPath: String) throws(FileSystemError) {
        if fileNames.count > Self.perFileSyncLimit {
            // The folder is on the store's file system: its descriptor serves.
            if try fileSystem.syncFileSystem(directory, path: rootPath) { return }
        }
        for name in fileNames {
            let path = directoryPath + "/" + name
            try fileSystem.closing(
                try fileSystem.open(name, in: directory, O_RDONLY | O_NONBLOCK, 0, path: path), path: path
            ) {
                file throws(FileSystemError) in try fileSystem.fsync(file, path: path)
            }
        }
        try fileSystem.fsync(directory, path: directoryPath)
    }

    /// Up to this many written files, a batch `fsync`s each of them rather than the whole file
    /// system (see ``makeDurable(fileNames:in:directoryPath:)``). On an idle disk one `syncfs` is
    /// cheaper than a few `fsync`s, but `syncfs` also waits for every other process's unflushed
    /// data, which can take far longer: a small batch gives up a little on an idle disk so as
    /// never to wait on its neighbours' data.
    static let perFileSyncLimit = 8
}
