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

extension FileStorageContext {
    /// Removes every entity of every type, all or nothing, also across a crash.
    ///
    /// Under the exclusive lock: logs every entity directory as wholly changed (query caches in
    /// every process reread), records a ``ResetIntent`` durably in `.journal`, renames each entity
    /// directory to a trash name, `fsync`s the store's directory, clears the intent, and removes
    /// the trash. A crash after the intent is durable is rolled forward by the next reader, writer
    /// or open, in any process, before it reads anything; a crash before leaves every record. A
    /// failure while running (disk full, permission denied) renames the directories back and
    /// clears the intent, so the store holds everything it held; only when that undo fails too is
    /// the intent left, and the reset completed by the next access. Readers never see some types
    /// removed and others not: they wait for the lock, and recover a pending intent first.
    ///
    /// Files the store does not own (anything starting with `.`) are left alone. Announces
    /// ``StorageChange/everything``.
    /// - Throws: ``StorageError`` of kind `.io` naming the path and the system's message; of kind
    ///   `.unsupported` on a transaction's handle, changing nothing (a transaction cannot reset
    ///   the store: reset it outside).
    public func reset() throws {
        if handleTransaction != nil {
            throw StorageError(
                .unsupported(
                    "a file store's transaction cannot reset the store; reset it outside the transaction"),
                location: rootPath)
        }
        try mapErrors(entityName: nil, key: nil) {
            try withWriteLock { try resetUnderLock() }
        }
        notifier.post(.everything)
    }

    private func resetUnderLock() throws {
        let names = try entityDirectoryNames()
        guard !names.isEmpty else { return }
        try logWholeDirectories(names)
        try writeResetIntent()
        var moved: [(from: String, to: String)] = []
        do {
            for name in names {
                let trash = rootPath + "/" + FileStoreLayout.trashDirectoryPrefix + Self.uniqueSuffix()
                if try fileSystem.renameIfPresent(rootPath + "/" + name, trash) {
                    moved.append((rootPath + "/" + name, trash))
                }
            }
            try fileSystem.syncDirectory(rootPath)
        } catch {
            // Not known to be durable: put every directory back, then drop the intent. If the undo
            // fails, the intent stays and the next access completes the reset instead.
            do {
                for (from, to) in moved.reversed() { try fileSystem.rename(to, from) }
                try fileSystem.syncDirectory(rootPath)
                try clearJournal()
            } catch {}
            throw error
        }
        // Committed: every directory is gone, durably. An intent that cannot be cleared now only
        // makes the next access roll forward a reset with nothing left to do, so it is no failure.
        try? clearJournal()
        for (_, trash) in moved { fileSystem.removeTreeIgnoringErrors(trash) }
    }

    /// Completes a reset whose intent a crashed or failed process left in `.journal`: renames every
    /// remaining entity directory away and makes that durable; the caller then clears the journal.
    /// Repeating it after a crash changes nothing more.
    func rollResetForward() throws {
        let names = try entityDirectoryNames()
        try logWholeDirectories(names)
        var trashes: [String] = []
        for name in names {
            let trash = rootPath + "/" + FileStoreLayout.trashDirectoryPrefix + Self.uniqueSuffix()
            if try fileSystem.renameIfPresent(rootPath + "/" + name, trash) { trashes.append(trash) }
        }
        try fileSystem.syncDirectory(rootPath)
        for trash in trashes { fileSystem.removeTreeIgnoringErrors(trash) }
    }

    /// The names of the entity directories: every directory in the store not starting with `.`.
    private func entityDirectoryNames() throws(FileSystemError) -> [String] {
        var names: [String] = []
        for name in try fileSystem.contentsOfDirectory(rootPath) where !name.hasPrefix(".") {
            if try fileSystem.status(atPath: rootPath + "/" + name)?.isDirectory == true { names.append(name) }
        }
        return names
    }

    /// Tells every process's query cache (and change monitor) that these directories changed whole.
    private func logWholeDirectories(_ names: [String]) throws(FileSystemError) {
        for name in names { changeMonitor.noteOwnLines(try changeLog.appendEveryRecord(directoryName: name)) }
    }

    /// Writes the intent to `.journal` and makes it durable (the store's directory too, when
    /// `.journal` had to be created), as a batch's journal is written.
    private func writeResetIntent() throws(FileSystemError) {
        let path = journalPath
        let (fd, created) = try openJournalEmptied()
        do throws(FileSystemError) {
            try fileSystem.writeAll(fd, ResetIntent.bytes, path: path)
            try fileSystem.fsync(fd, path: path)
        } catch {
            try? fileSystem.close(fd, path: path)
            try? clearJournal()
            throw error
        }
        // The intent may be durable already; a failure now must not leave it behind for recovery
        // to act on, since the call reports that nothing happened.
        do throws(FileSystemError) {
            try fileSystem.close(fd, path: path)
            if created { try fileSystem.syncDirectory(rootPath) }
        } catch {
            try? clearJournal()
            throw error
        }
    }
}
