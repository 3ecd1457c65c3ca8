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

/// A ``StorageContext`` that keeps one file per record in a directory, crash-safely.
///
/// Layout: `<directory>/<entity name>/<key>.json` (or `.plist`), with names escaped reversibly
/// (see the DAOKit catalog's article "The file store's format"), plus the store's own `.lock` and `.journal` files. Guarantees:
/// - a single write replaces a record whole or not at all (temporary file, `fsync`, `rename`,
///   `fsync` of the directory), and a batch — `save` of several entities, `delete` of several ids,
///   `deleteAll` — is all or nothing, also across a crash of the process or machine;
/// - a failed call (permission denied, disk full, a directory removed underneath) throws a
///   ``StorageError`` of kind `.io` naming the path and the system's message, and leaves the store
///   exactly as it was;
/// - a record that cannot be read is a ``StorageError`` naming its file, and never hides the others;
/// - it is safe to use from many threads, and from several processes at once (an advisory lock on
///   `.lock`); the first reader or writer after a crash puts a half-applied batch back first.
///
/// A store this process may only read (a read-only directory or mount, another user's store)
/// opens and reads normally, and its writes throw ``StorageError`` of kind `.io` naming the path
/// and changing nothing. It cannot repair what a crash left, and need not for most reads: the
/// records of an entity type whose batch stopped half way cannot be read until a process with
/// write access opens or writes to the store (they throw `.io` naming `.journal`); every other
/// record reads.
public final class FileStorageContext: StorageContext {
    /// The store's directory.
    public let directory: URL
    /// How records are serialized.
    public let format: RecordFormat

    let rootPath: String
    let fileSystem: any FileSystem
    let codec: RecordCodec
    let lock: StoreLock
    /// What readers check under the shared lock to learn whether a crashed batch must be rolled
    /// back first (see ``readCondition()``).
    let journalProbe: JournalProbe
    let fileExtension: String
    /// Why this process could not recover the journal the last time it tried (it has no write
    /// access), so readers go on without trying again on every read; cleared when a recovery
    /// succeeds.
    let recoveryRefusal = Locked<FileSystemError?>(nil)
    /// The escaped name and path of each entity type's directory, by entity name (see
    /// ``entityDirectory(_:)``). Sound as `Sendable`: it holds only strings, and never leaves the lock.
    let entityDirectories = Locked<[String: EntityDirectory]>([:])
    /// Which records writes changed, for every process's query cache.
    let changeLog: ChangeLog
    /// Decoded entities and their indexes, for queries (see ``QueryCache``).
    let queryCache: FileQueryCache
    /// Tails the change log for other processes' commits while anyone observes.
    let changeMonitor: FileChangeMonitor
    /// Announces this context's commits, and the monitor's findings (see `FileStorageContext+Changes.swift`).
    let notifier: StorageChangeNotifier
    /// On a transaction's handle, its transaction, which every call goes through (see
    /// `FileStorageContext+Transactions.swift`); `nil` on the context itself.
    let handleTransaction: FileTransaction?

    /// Opens the store in `directory`, creating the directory (and its parents) when missing, and
    /// recovers from any crash of an earlier writer before returning.
    ///
    /// - Parameter format: the serialization of record files. A store holds one format: opening
    ///   it with the other is an error (see below), found from the file names opening lists anyway.
    /// - Throws: ``StorageError`` of kind `.io`, naming the path and the system's message, when the
    ///   directory cannot be created or opened, when it has no `.lock` and this process may not
    ///   create one, or when recovery fails for a reason other than a lack of write access (see
    ///   the type's description for what a read-only store does); of kind `.corruptRecord` naming
    ///   `.journal`, changing nothing, when the journal is whole but names paths the store never
    ///   writes (crafted or corrupted), which is neither rolled back nor discarded and must be
    ///   removed by hand; of kind `.corruptRecord` naming a record whose path holds a symbolic
    ///   link or another non-regular file that a rollback would have to write through; of kind
    ///   `.wrongFormat` naming the directory, when it holds record files of the other format
    ///   (only, or beside records of this one), which this context could neither see nor
    ///   keep from being duplicated.
    ///
    /// `queryCache` says how many decoded entities of each type queries may keep in memory (see
    /// ``QueryCache``); the default keeps every one.
    public convenience init(directory: URL, format: RecordFormat = .json, queryCache: QueryCache = .unbounded) throws {
        try self.init(directory: directory, format: format, queryCache: queryCache, fileSystem: POSIXFileSystem())
    }

    /// Benchmarks only, not API: opens the store as ``init(directory:format:queryCache:)`` does,
    /// but with `writingChecksums: false` writes records without their checksum, as format
    /// version 1 (what releases before checksums wrote, and what every release reads unchecked),
    /// so that the benchmarks can measure what the checksum costs against the same work without
    /// it. Nothing else may turn checksums off: a record written so is never checked.
    /// - Throws: as ``init(directory:format:queryCache:)``.
    @_spi(DAOKitBenchmarks)
    public convenience init(directory: URL, format: RecordFormat = .json, writingChecksums: Bool) throws {
        try self.init(
            directory: directory, format: format, queryCache: .unbounded, fileSystem: POSIXFileSystem(),
            writesChecksums: writingChecksums)
    }

    /// Opens the store through `fileSystem`, the seam the tests implement to inject failures. Every
    /// call below the directory goes through `fileSystem.confined(to:)`, which follows no link there.
    init(
        directory: URL, format: RecordFormat = .json, queryCache: QueryCache = .unbounded,
        fileSystem unconfined: any FileSystem, writesChecksums: Bool = true
    ) throws {
        self.directory = directory
        self.format = format
        codec = RecordCodec(format: format, writesChecksums: writesChecksums)
        fileExtension = format.fileExtension
        var path = directory.standardizedFileURL.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        rootPath = path
        let fileSystem: any FileSystem
        do {
            try Self.createDirectory(path, fileSystem: unconfined)
            fileSystem = try unconfined.confined(to: path)
            lock = try StoreLock(path: path + "/" + FileStoreLayout.lockFileName, fileSystem: fileSystem)
        } catch {
            throw StorageError.fileSystem(error, entityName: nil, key: nil)
        }
        self.fileSystem = fileSystem
        journalProbe = JournalProbe(path: path + "/" + FileStoreLayout.journalFileName, fileSystem: fileSystem)
        // Through the confined file system, like every other file of the store.
        changeLog = ChangeLog(rootPath: path, fileSystem: fileSystem)
        self.queryCache = FileQueryCache(policy: queryCache, format: format, changeLog: changeLog)
        changeMonitor = FileChangeMonitor(log: changeLog, format: format)
        notifier = StorageChangeNotifier(monitor: changeMonitor, pollInterval: Self.changePollInterval)
        handleTransaction = nil
        try mapErrors(entityName: nil, key: nil) {
            try lock.withExclusiveLock { try recoverOnOpen() }
        }
    }

    /// A handle on `transaction`: the store `context` opened, whose files, lock and logs it shares.
    init(transactionOn context: FileStorageContext, transaction: FileTransaction) {
        directory = context.directory
        format = context.format
        codec = context.codec
        fileExtension = context.fileExtension
        rootPath = context.rootPath
        fileSystem = context.fileSystem
        lock = context.lock
        journalProbe = context.journalProbe
        changeLog = context.changeLog
        queryCache = context.queryCache
        changeMonitor = context.changeMonitor
        notifier = context.notifier
        handleTransaction = transaction
    }

    // MARK: Reading

    /// The entity stored under `id`, or `nil` when there is none.
    /// - Throws: ``StorageError`` naming the file: `.corruptRecord` when it is not a record (empty,
    ///   truncated, random bytes, an unknown format version, a directory, a symbolic link, FIFO or
    ///   anything else that is not a regular file, none of which is ever followed or opened for
    ///   reading in a way that could block), `.decodingFailed` when
    ///   the entity does not decode, `.io` when it cannot be read, or when a batch of this entity
    ///   type stopped half way and this process may not roll it back (the error names `.journal`).
    public func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        if let handleTransaction { return try handleTransaction.fetch(type, id: id) }
        let entityName = E.entityName
        let key = id.storageKey
        let path = recordPath(entityName: entityName, key: key)
        let versioning = try EntityVersioning.of(E.self)
        let contents = try mapErrors(entityName: entityName, key: key) {
            try withReadLock(entityName: entityName) { pending in
                try pending?.contents(of: fileName(forKey: key)) ?? fileSystem.readContents(of: path)
            }
        }
        switch contents {
        case .absent:
            return nil
        case .directory:
            throw Self.directoryInTheWay(entityName: entityName, key: key, path: path)
        case .notRegularFile:
            throw Self.notRegularFile(entityName: entityName, key: key, path: path)
        case .bytes(let data):
            // The record as this release writes it, holding `key` (the common case, and the cheap
            // one); anything else through the whole envelope, which names what is wrong.
            if let entity = codec.decodeCanonicalJSON(E.self, from: data, key: key, versioning: versioning) {
                return entity
            }
            let record = try codec.decode(
                E.self, from: data, path: path, entityName: entityName, key: key, versioning: versioning)
            guard record.key == key else {
                throw StorageError(
                    .corruptRecord("the file holds the record of key \(record.key.debugDescription)"),
                    entityName: entityName, key: key, location: path)
            }
            return record.entity
        }
    }

    /// Every stored entity of the type, in no particular order.
    /// - Throws: ``StorageError`` when any record cannot be read: for one, the error ``fetch(_:id:)``
    ///   throws for it (same kind, file and underlying error); for several, one error of their
    ///   kind whose ``StorageError/underlyingError`` is ``RecordFailures``, listing each record.
    public func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        if let handleTransaction { return try handleTransaction.fetchAll(type) }
        let entityName = E.entityName
        let directoryPath = entityDirectoryPath(entityName)
        // Checked before anything is read, so that an empty store fails a wrong schema too.
        _ = try EntityVersioning.of(E.self)
        let files = try mapErrors(entityName: entityName, key: nil) {
            try withReadLock(entityName: entityName) { pending throws -> [(name: String, contents: FileContents)] in
                try recordFiles(in: directoryPath, around: pending)
            }
        }
        return try decodeRecordFiles(E.self, files, directoryPath: directoryPath)
    }

    /// The entities of `files`, record files of the type's folder `directoryPath` with their
    /// contents, as ``fetchAll(_:)`` returns them.
    /// - Throws: as ``fetchAll(_:)``.
    func decodeRecordFiles<E: Storable>(
        _ type: E.Type, _ files: [(name: String, contents: FileContents)], directoryPath: String
    ) throws -> [E] {
        let entityName = E.entityName
        var entities: [E] = []
        entities.reserveCapacity(files.count)
        var failures: [StorageError] = []
        for (name, contents) in files {
            do {
                if let record = try decodeRecordFile(
                    E.self, name: name, contents: contents, directoryPath: directoryPath)
                {
                    entities.append(record.entity)
                }
            } catch {
                failures.append(error)
            }
        }
        try StorageError.throwIfAny(failures, entityName: entityName, location: directoryPath)
        return entities
    }

    /// The key and entity of the record file `name` of an entity directory, read as `contents`,
    /// and whether `name` spells the key out (``key(fromFileName:)`` reads it back; a hashed name
    /// does not); `nil` when the file is gone.
    /// - Throws: ``StorageError`` naming the record when it is not a regular file or does not decode.
    func decodeRecordFile<E: Storable>(
        _ type: E.Type, name: String, contents: FileContents, directoryPath: String
    ) throws(StorageError) -> (key: String, entity: E, nameSpellsKey: Bool)? {
        let entityName = E.entityName
        let path = directoryPath + "/" + name
        let versioning = try EntityVersioning.of(E.self)
        switch contents {
        case .absent:
            return nil
        case .directory:
            throw Self.directoryInTheWay(entityName: entityName, key: key(fromFileName: name), path: path)
        case .notRegularFile:
            throw Self.notRegularFile(entityName: entityName, key: key(fromFileName: name), path: path)
        case .bytes(let data):
            // A file name that spells a key out tells which key the record must hold, which is
            // all the canonical shortcut needs (see `fetch`); hashed names take the long way.
            let nameKey = key(fromFileName: name)
            if let nameKey, fileName(forKey: nameKey) == name,
                let entity = codec.decodeCanonicalJSON(E.self, from: data, key: nameKey, versioning: versioning)
            {
                return (nameKey, entity, true)
            }
            do {
                let record = try codec.decode(
                    E.self, from: data, path: path, entityName: entityName, key: nameKey, versioning: versioning)
                guard fileName(forKey: record.key) == name else {
                    throw StorageError(
                        .corruptRecord(RecordEnvelope.misplacedKey(record.key)),
                        entityName: entityName, key: record.key, location: path)
                }
                // The file is named after the key (checked above), so a key the name reads back as is spelled out.
                return (record.key, record.entity, record.key == nameKey)
            } catch {
                throw error as? StorageError
                    ?? StorageError(.decodingFailed, entityName: entityName, location: path, underlyingError: error)
            }
        }
    }

    /// How many record files of the type exist.
    ///
    /// The files are counted, not read, so that counting stays as cheap as listing a directory.
    /// In a sound store that is the number of entities ``fetchAll(_:)`` returns. A file that
    /// `fetchAll` rejects still counts: a damaged record, a directory in a record's place, or a
    /// record copied by hand under another key's name (then `count` says 2 while `fetchAll`
    /// throws, naming the copy). `dao verify` lists every such file.
    /// - Throws: ``StorageError`` of kind `.io` when the directory cannot be listed, or when a
    ///   batch of this entity type stopped half way and this process may not roll it back.
    public func count<E: Storable>(_ type: E.Type) throws -> Int {
        if let handleTransaction { return try handleTransaction.count(type) }
        let directoryPath = entityDirectoryPath(E.entityName)
        return try mapErrors(entityName: E.entityName, key: nil) {
            try withReadLock(entityName: E.entityName) { pending in
                try recordFileNames(in: directoryPath, around: pending).count
            }
        }
    }

    /// The file that holds, or would hold, the record of `id` — for tools and tests.
    public func fileURL<E: Storable>(for type: E.Type, id: E.ID) -> URL {
        URL(fileURLWithPath: recordPath(entityName: E.entityName, key: id.storageKey))
    }

    // MARK: Layout

    func entityDirectoryName(_ entityName: String) -> String {
        entityDirectory(entityName).name
    }

    func entityDirectoryPath(_ entityName: String) -> String {
        entityDirectory(entityName).path
    }

    /// The directory of an entity type, escaped once per context and name rather than on every
    /// call: escaping and joining the names again for each record cost a few percent of reading it.
    func entityDirectory(_ entityName: String) -> EntityDirectory {
        if let known = entityDirectories.withLock({ $0[entityName] }) { return known }
        let name = FileNameCodec.encode(entityName)
        let directory = EntityDirectory(name: name, path: rootPath + "/" + name)
        entityDirectories.withLock { $0[entityName] = directory }
        return directory
    }

    func fileName(forKey key: String) -> String {
        format.fileName(forKey: key)
    }

    func recordPath(entityName: String, key: String) -> String {
        entityDirectory(entityName).path + "/" + fileName(forKey: key)
    }

    var journalPath: String { journalProbe.path }

    /// The key a record file name stands for; `nil` for hashed or foreign names.
    func key(fromFileName name: String) -> String? {
        format.key(fromFileName: name)
    }

    /// Names of record files: with this format's extension, and not the store's own dot-files.
    func recordFileNames(in directoryPath: String) throws(FileSystemError) -> [String] {
        let names: [String]
        do throws(FileSystemError) {
            names = try fileSystem.contentsOfDirectory(directoryPath)
        } catch  where error.code == ENOENT {
            return []
        }
        let suffix = "." + fileExtension
        return names.filter { !$0.hasPrefix(".") && $0.hasSuffix(suffix) }
    }

    /// The names of the record files of a folder in the committed state: those listed, around the
    /// `pending` batch's journal when there is one (see ``CommittedFiles``).
    func recordFileNames(in directoryPath: String, around pending: CommittedFiles?) throws(FileSystemError) -> [String]
    {
        let listed = try recordFileNames(in: directoryPath)
        guard let pending else { return listed }
        return pending.names(listed: listed, fileExtension: fileExtension)
    }

    /// Every record file of a folder in the committed state, with its contents (see
    /// ``recordFileNames(in:around:)``).
    func recordFiles(in directoryPath: String, around pending: CommittedFiles?) throws(FileSystemError) -> [(
        name: String, contents: FileContents
    )] {
        var files: [(name: String, contents: FileContents)] = []
        for name in try recordFileNames(in: directoryPath, around: pending) {
            if let kept = pending?.contents(of: name) {
                files.append((name, kept))
            } else {
                files.append((name, try fileSystem.readContents(of: directoryPath + "/" + name)))
            }
        }
        return files
    }

    /// A unique name for a temporary file. Names starting with `.tmp-` are never records, and
    /// recovery removes any that a crash left behind.
    static func temporaryName() -> String {
        FileStoreLayout.temporaryFilePrefix + uniqueSuffix()
    }

    /// Random hex digits that make a temporary or trash name unique.
    static func uniqueSuffix() -> String {
        String(UInt64.random(in: .min ... .max), radix: 16)
    }

    // MARK: Locking and errors

    /// Runs `body` as the only writer, after putting back any batch a crash left half applied.
    func withWriteLock<T>(_ body: () throws -> T) throws -> T {
        try lock.withExclusiveLock {
            try recoverJournal()
            rememberRecoveryRefused(nil)
            return try body()
        }
    }

    /// Runs `body`, which reads records of `entityName`, with no writer running, in this or
    /// another process; when a crashed writer left a journal, recovers it under the exclusive lock
    /// first. When that recovery must wait (no write access, no free space), `body` gets the
    /// journal's ``CommittedFiles`` for this entity type's folder, through which it reads the
    /// committed state without writing anything; otherwise `nil`.
    func withReadLock<T>(entityName: String, _ body: (CommittedFiles?) throws -> T) throws -> T {
        for _ in 0..<3 {
            let result = try lock.withSharedLock(examine: { try readCondition() }) { condition -> T in
                if case .unfinishedBatch(let journal, _) = condition {
                    let directoryName = entityDirectoryName(entityName)
                    if journal.directoryNames.contains(directoryName) {
                        return try body(CommittedFiles(journal, directoryName: directoryName))
                    }
                }
                return try body(nil)
            }
            if let result { return result }
            try recoverForReaders()
        }
        throw FileSystemError(operation: "recover", path: journalPath, code: EAGAIN)
    }

    /// Converts file-system errors into ``StorageError``s naming the entity, the key (recovered from
    /// the file name when the caller has none) and the path.
    func mapErrors<T>(entityName: String?, key: String?, _ body: () throws -> T) throws(StorageError) -> T {
        do {
            return try body()
        } catch let error as StorageError {
            throw error
        } catch let error as FileSystemError {
            let name = error.path.split(separator: "/").last.map(String.init) ?? ""
            // A record's path holding a link, FIFO or device is bad data, like a directory there;
            // the journal and the lock are the store's own files, so the same thing there is an
            // I/O failure.
            if error.isNotRegularFile && error.path != journalPath && error.path != lock.path {
                throw Self.notRegularFile(
                    entityName: entityName, key: key ?? self.key(fromFileName: name), path: error.path)
            }
            if error.refusal == .notADirectory {
                throw StorageError(
                    .corruptRecord(
                        "a symbolic link or other non-directory is where a folder of the store should be; "
                            + "the store never follows it"),
                    entityName: entityName, location: error.path, underlyingError: error)
            }
            throw StorageError.fileSystem(error, entityName: entityName, key: key ?? self.key(fromFileName: name))
        } catch let error as ReentrantLockRequest {
            throw StorageError(.reentrantCall, location: error.path)
        } catch {
            throw StorageError(.io(String(describing: error)), entityName: entityName, key: key, underlyingError: error)
        }
    }

    static func directoryInTheWay(entityName: String, key: String?, path: String) -> StorageError {
        StorageError(
            .corruptRecord("a directory is where the record file should be"), entityName: entityName, key: key,
            location: path)
    }

    /// A symbolic link, FIFO, socket or device where a record file should be. The store neither
    /// follows nor writes through it (see ``FileSystem/readContents(of:)``).
    static func notRegularFile(entityName: String?, key: String?, path: String) -> StorageError {
        StorageError(.corruptRecord("not a regular file"), entityName: entityName, key: key, location: path)
    }

    /// `mkdir -p`: creates `path` and missing parents; an existing directory is fine.
    ///
    /// Terminates on every file system: each call recurses only into a strictly shorter parent,
    /// and after the parents exist it tries `path` exactly once more. Some file systems report
    /// `ENOENT` for a `mkdir` whose parent does exist (`/proc`, `/sys`, cgroupfs, some FUSE
    /// mounts); retrying `path` by recursion there would never end and overflow the stack.
    /// - Throws: the last `mkdir`'s error, naming `path`, when it still cannot be created.
    static func createDirectory(_ path: String, fileSystem: any FileSystem) throws(FileSystemError) {
        do throws(FileSystemError) {
            try fileSystem.makeDirectory(path)
            return
        } catch  where error.code == EEXIST {
            try requireDirectory(path, fileSystem: fileSystem)
            return
        } catch  where error.code == ENOENT {
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else { throw error }
            try createDirectory(parent, fileSystem: fileSystem)
        }
        // The parents exist now: one more try, and its failure is final.
        do throws(FileSystemError) {
            try fileSystem.makeDirectory(path)
        } catch  where error.code == EEXIST {
            try requireDirectory(path, fileSystem: fileSystem)
        }
    }

    /// Throws `ENOTDIR` unless `path`, which exists, is a directory or a symbolic link to one: the
    /// store's own directory, and its parents, are the user's to choose, links included.
    private static func requireDirectory(_ path: String, fileSystem: any FileSystem) throws(FileSystemError) {
        let fd: Int32
        do throws(FileSystemError) {
            fd = try fileSystem.open(path, O_RDONLY | O_DIRECTORY, 0)
        } catch  where error.code == ENOTDIR {
            throw FileSystemError(operation: "mkdir", path: path, code: ENOTDIR)
        }
        try fileSystem.close(fd, path: path)
    }
}

extension StorageError {
    /// The `.io` error for a failed file-system call: its message, path and `errno`.
    static func fileSystem(_ error: FileSystemError, entityName: String?, key: String?) -> StorageError {
        StorageError(.io(error.message), entityName: entityName, key: key, location: error.path, underlyingError: error)
    }
}

/// Where the records of one entity type live: the escaped entity name, which is the directory's
/// name in the store, and the directory's path.
struct EntityDirectory: Sendable {
    let name: String
    let path: String
}
