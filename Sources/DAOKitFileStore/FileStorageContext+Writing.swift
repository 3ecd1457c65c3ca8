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

/// One record file a write changes: new contents, or `nil` to remove it.
struct RecordChange {
    var key: String
    var fileName: String
    var contents: Data?
    /// Whether a transaction removed the committed record (one by one, or every record of the
    /// type) before this write: what the write replaces is then gone, however new it was, and
    /// its version is not checked (`checkReplacing`).
    var removedFirst = false
}

/// The changes a batch makes in one entity folder: a batch of one type has one, a transaction's
/// commit one per type it wrote.
struct FolderChanges {
    let entityName: String
    let directory: EntityDirectory
    let changes: [RecordChange]
    /// The entity's versioning for a save (see `checkReplacing`); `nil` for removals.
    let versioning: EntityVersioning?
}

extension FileStorageContext {
    // MARK: StorageContext writes

    /// Inserts or replaces `entities` by id, all or nothing, also across a crash. When the same id
    /// appears twice, the later entity wins.
    /// - Throws: ``StorageError``: `.encodingFailed` when an entity cannot be encoded (nothing is
    ///   written), `.corruptRecord` when a directory stands where a record file should be, `.io`
    ///   with the path and the system's message when the store cannot be written. In every case
    ///   the store holds exactly what it held before.
    public func save<E: Storable>(_ entities: [E]) throws {
        try save(entities, mode: .upsert)
    }

    /// Saves `entities` as `mode` says — insert or replace, insert only, replace only — all or
    /// nothing. The id check and the write happen under one lock, so no other thread or process
    /// can slip in between.
    ///
    /// A type with a unique index (``StorageIndex/isUnique``) is checked under the same lock: the
    /// write looks the values up in the query cache when it keeps the type (brought up to date
    /// from the change log first), and otherwise reads the indexed fields of every other record
    /// of the type, as stored; either way no two contexts or processes can both store one value.
    /// - Throws: ``StorageError``: `.duplicateID` (insert: an id is stored already or appears twice)
    ///   or `.missingID` (update: an id is not stored) naming the first offending key,
    ///   `.uniqueViolation` (the write would leave two records with equal values in a unique
    ///   index, judged on the state it leaves; naming both keys), or any error ``save(_:)``
    ///   throws. Nothing is written when it throws.
    public func save<E: Storable>(_ entities: [E], mode: SaveMode) throws {
        if let handleTransaction { return try handleTransaction.save(entities, mode: mode) }
        guard !entities.isEmpty else { return }
        let entityName = E.entityName
        let versioning = try EntityVersioning.of(E.self)
        let unique = StoredUniqueValues(indexes: E.indexes)
        // Looked up once for the whole write (each lookup takes the context's lock).
        let directory = entityDirectory(entityName)
        // Encoding happens before taking the lock: it is the slow part, and a failure must leave
        // nothing written. So does everything else that runs user code (the `id` getter, the
        // key's `storageKey`): none may run under the lock, where calling this context again
        // would be refused.
        var changes: [RecordChange] = []
        changes.reserveCapacity(entities.count)
        var keys: [String] = []
        keys.reserveCapacity(entities.count)
        var positions: [String: Int] = [:]
        // What this context's query cache is given once the write commits, when it keeps the
        // type; names and keys are computed once, here, not again for the cache.
        let cacheKeepsType = queryCache.keeps(E.self, directoryName: directory.name)
        var cacheRecords: [(fileName: String, key: String, entity: E?)] = []
        if cacheKeepsType { cacheRecords.reserveCapacity(entities.count) }
        for entity in entities {
            let key = entity.id.storageKey
            keys.append(key)
            let name = fileName(forKey: key)
            if cacheKeepsType { cacheRecords.append((name, key, entity)) }
            let data: Data
            do {
                data = try codec.encode(entity, key: key, versioning: versioning)
            } catch {
                throw StorageError(
                    .encodingFailed, entityName: entityName, key: key,
                    location: directory.path + "/" + name, underlyingError: error)
            }
            if let position = positions[name] {
                changes[position].contents = data
            } else {
                positions[name] = changes.count
                changes.append(RecordChange(key: key, fileName: name, contents: data))
            }
        }
        let cacheUpdate =
            cacheKeepsType ? queryCache.prepare(E.self, directoryName: directory.name, records: cacheRecords) : nil
        try write(
            changes, entityName: entityName, directory: directory, cacheUpdate: cacheUpdate, versioning: versioning
        ) {
            if mode != .upsert {
                try SaveModeCheck.validate(keys: keys, entityName: entityName, mode: mode) { position in
                    try fileSystem.status(atPath: directory.path + "/" + fileName(forKey: keys[position])) != nil
                }
            }
            if !unique.isEmpty {
                // The query cache's table answers when it keeps the type; otherwise the records
                // are read.
                if let cacheUpdate,
                    try queryCache.checkUnique(E.self, write: cacheUpdate, in: self, entityName: entityName)
                {
                    return
                }
                try checkUnique(changes, unique: unique, entityName: entityName, directoryPath: directory.path)
            }
        }
    }

    /// Removes the entities with these ids, all or nothing; unknown ids are ignored.
    /// - Throws: ``StorageError`` of kind `.io` with the path and the system's message; the store
    ///   then holds exactly what it held before.
    public func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws {
        try delete(type, storageKeys: ids.map(\.storageKey))
    }

    /// Removes every entity of the type, atomically: the entity's directory is renamed away in one
    /// step, then emptied.
    /// - Throws: ``StorageError`` of kind `.io` with the path and the system's message, or of kind
    ///   `.corruptRecord` naming the entity folder when it is a symbolic link or anything else that
    ///   is not a directory (never followed); the store then holds exactly what it held before.
    public func deleteAll<E: Storable>(_ type: E.Type) throws {
        if let handleTransaction { return try handleTransaction.deleteAll(type) }
        let entityName = E.entityName
        let directoryPath = entityDirectoryPath(entityName)
        try mapErrors(entityName: entityName, key: nil) {
            try withWriteLock {
                // Renaming a link planted as the entity folder would move the link, not the records,
                // and report them deleted: it is refused, naming it, like every other call does.
                if let status = try fileSystem.status(atPath: directoryPath), !status.isDirectory {
                    throw FileSystemError.notADirectory(operation: "rename", path: directoryPath)
                }
                // Query caches (this one's too) reread the whole type when they see this line.
                changeMonitor.noteOwnLines(
                    try changeLog.appendEveryRecord(directoryName: entityDirectoryName(entityName)))
                let trash = rootPath + "/" + FileStoreLayout.trashDirectoryPrefix + Self.uniqueSuffix()
                guard try fileSystem.renameIfPresent(directoryPath, trash) else { return }
                do {
                    try fileSystem.syncDirectory(rootPath)
                } catch {
                    // Not known to be durable: put the directory back, so the call changes nothing.
                    try? fileSystem.rename(trash, directoryPath)
                    try? fileSystem.syncDirectory(rootPath)
                    throw error
                }
                // Committed. What is left is garbage that recovery removes if this stops half way.
                fileSystem.removeTreeIgnoringErrors(trash)
            }
        }
        notifier.post(.entity(entityName))
    }

    // MARK: Single writes and batches

    /// Applies `changes` to the records of `entityName`, whose folder is `directory`, under the
    /// write lock, after `check` (which may throw to write nothing), logging them in the change log
    /// first and, once they are committed, updating this context's query cache with `cacheUpdate`.
    ///
    /// With `versioning` (a save), a record written by a newer version of the entity is not
    /// replaced: the write throws ``StorageError/Kind/newerVersion(_:)`` before changing any
    /// record, having read what it replaces as it always does (to undo a failure).
    func write(
        _ changes: [RecordChange], entityName: String, directory: EntityDirectory,
        cacheUpdate: FileQueryCache.PendingWrite? = nil, versioning: EntityVersioning? = nil,
        check: () throws -> Void = {}
    ) throws {
        try mapErrors(entityName: entityName, key: changes.count == 1 ? changes[0].key : nil) {
            try withWriteLock {
                try check()
                let logged = try changeLog.append(
                    directoryName: directory.name, fileNames: changes.lazy.map(\.fileName))
                changeMonitor.noteOwnLines(logged)
                if changes.count == 1 {
                    try writeSingle(
                        changes[0], directoryPath: directory.path, entityName: entityName, versioning: versioning)
                } else {
                    try writeBatch(
                        [
                            FolderChanges(
                                entityName: entityName, directory: directory, changes: changes, versioning: versioning)
                        ])
                }
                queryCache.apply(cacheUpdate, logged: logged)
            }
        }
        notifier.post(entityName: entityName, storageKeys: changes.lazy.map(\.key))
    }

    /// One record: temporary file → write → `fsync` → `rename` → `fsync` of the directory. The
    /// rename is atomic, so a crash leaves the old record or the new one; the old contents are kept
    /// in memory so that a failure after the rename (the directory `fsync`) can still be undone.
    ///
    /// The entity folder is opened once, confined like every path (never through a link), and each
    /// call below names its entry relative to it: no path is resolved again and no descriptor
    /// opened for the rename or the folder's `fsync` (two system calls fewer than by path), and
    /// the folder made durable is the very one the rename happened in.
    func writeSingle(
        _ change: RecordChange, directoryPath: String, entityName: String, versioning: EntityVersioning?
    ) throws {
        let path = directoryPath + "/" + change.fileName
        // No folder means no record yet: a removal has nothing to do.
        guard let directory = try openEntityDirectory(directoryPath, creating: change.contents != nil) else { return }
        // Only read from: closing it can lose nothing.
        defer { try? fileSystem.close(directory, path: directoryPath) }
        let previous = try previousContents(
            of: change.fileName, in: directory, path: path, entityName: entityName, key: change.key)
        guard let contents = try contents(replacing: previous, with: change, versioning: versioning, path: path) else {
            guard previous != nil else { return }
            try fileSystem.unlink(change.fileName, in: directory, path: path)
            do {
                try fileSystem.fsync(directory, path: directoryPath)
            } catch {
                restore(change.fileName, to: previous, in: directory, directoryPath: directoryPath)
                throw error
            }
            return
        }
        // The folder was there, or was just made durably (``ensureDirectory(_:)``).
        let temporaryName = Self.temporaryName()
        let temporary = directoryPath + "/" + temporaryName
        do {
            try fileSystem.writeFile(
                temporaryName, in: directory, path: temporary, contents, flags: O_WRONLY | O_CREAT | O_EXCL, sync: true)
            try fileSystem.rename(temporaryName, to: change.fileName, in: directory, path: path)
        } catch {
            try? fileSystem.unlink(temporaryName, in: directory, path: temporary)
            throw error
        }
        do {
            try fileSystem.fsync(directory, path: directoryPath)
        } catch {
            restore(change.fileName, to: previous, in: directory, directoryPath: directoryPath)
            throw error
        }
    }

    /// Puts the record `name` of the folder open as `directory` back as it was after a failed
    /// single write, best effort (the error that caused it is what the caller reports).
    private func restore(_ name: String, to previous: Data?, in directory: Int32, directoryPath: String) {
        let path = directoryPath + "/" + name
        if let previous {
            let temporaryName = Self.temporaryName()
            let temporary = directoryPath + "/" + temporaryName
            do {
                try fileSystem.writeFile(
                    temporaryName, in: directory, path: temporary, previous, flags: O_WRONLY | O_CREAT | O_EXCL,
                    sync: true)
                try fileSystem.rename(temporaryName, to: name, in: directory, path: path)
            } catch {
                try? fileSystem.unlink(temporaryName, in: directory, path: temporary)
            }
        } else {
            try? fileSystem.unlink(name, in: directory, path: path)
        }
        try? fileSystem.fsync(directory, path: directoryPath)
    }

    /// Several records, of one entity folder or of several (a transaction), all or nothing, with
    /// one undo journal:
    /// 1. read the current contents of every file the batch touches;
    /// 2. write them to the journal and `fsync` it — from here a crash is rolled back on open;
    /// 3. rewrite the files in place (see ``FileSystem/overwriteFile(_:_:previousLength:)``) and
    ///    remove the deleted ones, with no `fsync` per file;
    /// 4. flush them all at once, whatever folders they lie in (one `syncfs` of the file system,
    ///    or one `fsync` per file and folder where there is none or the batch is small);
    /// 5. commit by truncating the journal and `fsync`ing it.
    /// In-place writes avoid creating an inode per record, which is what makes a batch much
    /// cheaper per record than single writes, and one flush for every folder is what makes a
    /// transaction over several types cost what a batch of the same records costs. Readers never
    /// see the intermediate states: they take the shared lock, and recover a leftover journal
    /// before reading.
    ///
    /// It opens each entity folder once and names every file relative to it.
    func writeBatch(_ folders: [FolderChanges]) throws {
        var opened: [(folder: FolderChanges, fd: Int32, files: [FileRewrite])] = []
        // Only read from: closing them can lose nothing.
        defer { for open in opened { try? fileSystem.close(open.fd, path: open.folder.directory.path) } }
        var entries: [Journal.Entry] = []
        // The journal's own folder: the first with an entry. Only other folders' entries name
        // theirs, so that a batch of one folder writes a version 1 journal, as every release reads.
        var journalFolder: String?
        for folder in folders {
            let directoryPath = folder.directory.path
            // No folder and only removals: there is nothing to remove.
            let creating = folder.changes.contains { $0.contents != nil }
            guard let fd = try openEntityDirectory(directoryPath, creating: creating) else { continue }
            opened.append((folder, fd, []))
            var files: [FileRewrite] = []
            for change in folder.changes {
                let path = directoryPath + "/" + change.fileName
                let previous = try previousContents(
                    of: change.fileName, in: fd, path: path, entityName: folder.entityName, key: change.key)
                let contents = try contents(
                    replacing: previous, with: change, versioning: folder.versioning, path: path)
                if previous == nil && contents == nil { continue }
                if journalFolder == nil { journalFolder = folder.directory.name }
                entries.append(
                    Journal.Entry(
                        fileName: change.fileName, previousContents: previous,
                        directoryName: journalFolder == folder.directory.name ? nil : folder.directory.name))
                // A file that did not exist is created empty, so there is nothing to cut.
                files.append((change.fileName, contents, previous?.count ?? 0))
            }
            opened[opened.count - 1].files = files
        }
        guard let journalFolder else { return }
        let journal = Journal(directoryName: journalFolder, entries: entries)
        do {
            try writeJournal(journal)
        } catch {
            // No record was touched; a journal that did reach the disk only restores what is there.
            try? clearJournal()
            throw error
        }
        var committing = false
        do {
            try applyInPlace(
                opened.filter { !$0.files.isEmpty }.map {
                    FolderRewrite(directory: $0.fd, directoryPath: $0.folder.directory.path, files: $0.files)
                })
            committing = true
            try clearJournal()
        } catch {
            // Undo from the in-memory journal. If the commit itself failed, the journal on disk may
            // already be empty: write it again first, so that a crash during the undo still rolls back.
            do {
                if committing { try writeJournal(journal) }
                try rollBack(journal)
                try clearJournal()
            } catch {
                // Left for the next reader or writer, which rolls the journal back before going on.
            }
            throw error
        }
    }

    /// The bytes to write for `change` over `previous` (`nil`: a removal): refuses to replace a
    /// record a newer version wrote (``checkReplacing(_:with:versioning:path:)``), and keeps the
    /// fields the entity declares removed that `previous` holds (``EntityVersioning/keptFields``;
    /// not when the transaction removed the record first).
    func contents(
        replacing previous: Data?, with change: RecordChange, versioning: EntityVersioning?, path: String
    ) throws -> Data? {
        try checkReplacing(previous, with: change, versioning: versioning, path: path)
        guard let contents = change.contents, let previous, let versioning, !versioning.keptFields.isEmpty,
            !change.removedFirst
        else { return change.contents }
        do {
            return try codec.keeping(
                versioning.keptFields, from: previous, in: contents, key: change.key, versioning: versioning,
                path: path)
        } catch {
            throw StorageError(
                .encodingFailed, entityName: versioning.entityName, key: change.key, location: path,
                underlyingError: error)
        }
    }

    /// Refuses to replace `previous` (the bytes a change replaces) when a newer version of the
    /// entity wrote it: code that does not know that version's fields could only lose them.
    /// Removals are not refused.
    func checkReplacing(
        _ previous: Data?, with change: RecordChange, versioning: EntityVersioning?, path: String
    ) throws {
        guard let versioning, let previous, change.contents != nil, !change.removedFirst,
            let stored = codec.storedVersion(of: previous)
        else { return }
        try versioning.checkReplacing(storedVersion: stored, key: change.key, location: path)
    }

    /// The bytes the record `name` of the folder open as `directory` holds now (its whole path is
    /// `path`), `nil` when there is none.
    func previousContents(of name: String, in directory: Int32, path: String, entityName: String, key: String)
        throws -> Data?
    {
        switch try fileSystem.readContents(of: name, in: directory, path: path) {
        case .absent: return nil
        case .directory: throw Self.directoryInTheWay(entityName: entityName, key: key, path: path)
        case .notRegularFile: throw Self.notRegularFile(entityName: entityName, key: key, path: path)
        case .bytes(let data): return data
        }
    }

    /// The entity folder at `path`, open (never through a link) for calls on its entries by name;
    /// when there is none, created durably first if `creating` is set, else `nil`. Writes and the
    /// query cache's first read of a type open it this way.
    func openEntityDirectory(_ path: String, creating: Bool) throws(FileSystemError) -> Int32? {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW
        do {
            return try fileSystem.open(path, flags, 0)
        } catch  where error.code == ENOENT && error.refusal == nil {
            guard creating else { return nil }
        }
        try ensureDirectory(path)
        return try fileSystem.open(path, flags, 0)
    }

    /// Creates an entity's directory if needed, durably (its parent is `fsync`ed after creation).
    func ensureDirectory(_ path: String) throws(FileSystemError) {
        do throws(FileSystemError) {
            try fileSystem.makeDirectory(path)
        } catch  where error.code == EEXIST {
            return
        }
        try fileSystem.syncDirectory(rootPath)
    }
}
