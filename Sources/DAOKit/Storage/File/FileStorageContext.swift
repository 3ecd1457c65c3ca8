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
/// (see the README, "File store"), plus the store's own `.lock` and `.journal` files. Guarantees:
/// - a single write replaces a record whole or not at all (temporary file, `fsync`, `rename`,
///   `fsync` of the directory), and a batch — `save` of several entities, `delete` of several ids,
///   `deleteAll` — is all or nothing, also across a crash of the process or machine;
/// - a failed call (permission denied, disk full, a directory removed underneath) throws a
///   ``StorageError`` of kind `.io` naming the path and the system's message, and leaves the store
///   exactly as it was;
/// - a record that cannot be read is a ``StorageError`` naming its file, and never hides the others;
/// - it is safe to use from many threads, and from several processes at once (an advisory lock on
///   `.lock`); the first reader or writer after a crash puts a half-applied batch back first.
public final class FileStorageContext: StorageContext {
    /// The store's directory.
    public let directory: URL
    /// How records are serialized.
    public let format: RecordFormat

    let rootPath: String
    let fileSystem: any FileSystem
    let codec: RecordCodec
    let lock: StoreLock
    let fileExtension: String

    /// Opens the store in `directory`, creating the directory (and its parents) when missing, and
    /// recovers from any crash of an earlier writer before returning.
    ///
    /// - Parameter format: the serialization of record files; a directory must always be opened with
    ///   the format it was written in.
    /// - Throws: ``StorageError`` of kind `.io`, naming the path and the system's message, when the
    ///   directory cannot be created or opened, or when recovery cannot write to it.
    public convenience init(directory: URL, format: RecordFormat = .json) throws {
        try self.init(directory: directory, format: format, fileSystem: POSIXFileSystem())
    }

    /// Opens the store through `fileSystem`, the seam tests use to inject failures.
    init(directory: URL, format: RecordFormat = .json, fileSystem: any FileSystem) throws {
        self.directory = directory
        self.format = format
        self.fileSystem = fileSystem
        codec = RecordCodec(format: format)
        fileExtension = format.fileExtension
        var path = directory.standardizedFileURL.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        rootPath = path
        do {
            try Self.createDirectory(path, fileSystem: fileSystem)
            lock = try StoreLock(path: path + "/.lock", fileSystem: fileSystem)
        } catch {
            throw StorageError(.io(error.message), location: error.path, underlyingError: error)
        }
        try mapErrors(entityName: nil, key: nil) {
            try lock.withExclusiveLock { try recoverOnOpen() }
        }
    }

    // MARK: Reading

    /// The entity stored under `id`, or `nil` when there is none.
    /// - Throws: ``StorageError`` naming the file: `.corruptRecord` when it is not a record (empty,
    ///   truncated, random bytes, an unknown format version, a directory), `.decodingFailed` when
    ///   the entity does not decode, `.io` when it cannot be read.
    public func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        let entityName = E.entityName
        let key = id.storageKey
        let path = recordPath(entityName: entityName, key: key)
        let contents = try mapErrors(entityName: entityName, key: key) {
            try withReadLock { try fileSystem.readContents(of: path) }
        }
        switch contents {
        case .absent:
            return nil
        case .directory:
            throw Self.directoryInTheWay(entityName: entityName, key: key, path: path)
        case let .bytes(data):
            let record = try codec.decode(E.self, from: data, path: path, entityName: entityName, key: key)
            guard record.key == key else {
                throw StorageError(.corruptRecord("the file holds the record of key \(record.key.debugDescription)"),
                                   entityName: entityName, key: key, location: path)
            }
            return record.entity
        }
    }

    /// Every stored entity of the type, in no particular order.
    /// - Throws: ``StorageError`` when any record cannot be read; it names the file, or, when
    ///   several are bad, lists every one of them.
    public func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] {
        let entityName = E.entityName
        let directoryPath = entityDirectoryPath(entityName)
        let files = try mapErrors(entityName: entityName, key: nil) {
            try withReadLock { () throws -> [(name: String, contents: FileContents)] in
                try recordFileNames(in: directoryPath).map { ($0, try fileSystem.readContents(of: directoryPath + "/" + $0)) }
            }
        }
        var entities: [E] = []
        entities.reserveCapacity(files.count)
        var failures: [StorageError] = []
        for (name, contents) in files {
            let path = directoryPath + "/" + name
            switch contents {
            case .absent:
                continue
            case .directory:
                failures.append(Self.directoryInTheWay(entityName: entityName, key: key(fromFileName: name), path: path))
            case let .bytes(data):
                do {
                    let record = try codec.decode(E.self, from: data, path: path, entityName: entityName, key: key(fromFileName: name))
                    guard fileName(forKey: record.key) == name else {
                        throw StorageError(.corruptRecord("the file name does not match the key inside, \(record.key.debugDescription)"),
                                           entityName: entityName, key: record.key, location: path)
                    }
                    entities.append(record.entity)
                } catch {
                    failures.append(error as? StorageError ?? StorageError(.decodingFailed, entityName: entityName, location: path, underlyingError: error))
                }
            }
        }
        if failures.count == 1 { throw failures[0] }
        if failures.count > 1 {
            let list = failures.map { "\($0.location ?? "?"): \($0.detail)" }.joined(separator: "; ")
            throw StorageError(.corruptRecord("\(failures.count) records cannot be read: \(list)"),
                               entityName: entityName, location: directoryPath)
        }
        return entities
    }

    /// How many record files of the type exist; the records are not read.
    /// - Throws: ``StorageError`` of kind `.io` when the directory cannot be listed.
    public func count<E: Storable>(_ type: E.Type) throws -> Int {
        let directoryPath = entityDirectoryPath(E.entityName)
        return try mapErrors(entityName: E.entityName, key: nil) {
            try withReadLock { try recordFileNames(in: directoryPath).count }
        }
    }

    /// The file that holds, or would hold, the record of `id` — for tools and tests.
    public func fileURL<E: Storable>(for type: E.Type, id: E.ID) -> URL {
        URL(fileURLWithPath: recordPath(entityName: E.entityName, key: id.storageKey))
    }

    // MARK: Layout

    func entityDirectoryName(_ entityName: String) -> String {
        FileNameCodec.encode(entityName)
    }

    func entityDirectoryPath(_ entityName: String) -> String {
        rootPath + "/" + entityDirectoryName(entityName)
    }

    func fileName(forKey key: String) -> String {
        FileNameCodec.encode(key, suffixLength: fileExtension.utf8.count + 1) + "." + fileExtension
    }

    func recordPath(entityName: String, key: String) -> String {
        entityDirectoryPath(entityName) + "/" + fileName(forKey: key)
    }

    var journalPath: String { rootPath + "/.journal" }

    /// The key a record file name stands for; `nil` for hashed or foreign names.
    func key(fromFileName name: String) -> String? {
        guard name.hasSuffix("." + fileExtension) else { return nil }
        return FileNameCodec.decode(String(name.dropLast(fileExtension.utf8.count + 1)))
    }

    /// Names of record files: with this format's extension, and not the store's own dot-files.
    func recordFileNames(in directoryPath: String) throws(FileSystemError) -> [String] {
        let names: [String]
        do throws(FileSystemError) {
            names = try fileSystem.contentsOfDirectory(directoryPath)
        } catch where error.code == ENOENT {
            return []
        }
        let suffix = "." + fileExtension
        return names.filter { !$0.hasPrefix(".") && $0.hasSuffix(suffix) }
    }

    /// A unique name for a temporary file. Names starting with `.tmp-` are never records, and
    /// recovery removes any that a crash left behind.
    static func temporaryName() -> String {
        ".tmp-" + String(UInt64.random(in: .min ... .max), radix: 16)
    }

    // MARK: Locking and errors

    /// Runs `body` as the only writer, after putting back any batch a crash left half applied.
    func withWriteLock<T>(_ body: () throws -> T) throws -> T {
        try lock.withExclusiveLock {
            try recoverJournal()
            return try body()
        }
    }

    /// Runs `body` with no writer running, in this or another process; when a crashed writer left a
    /// journal, recovers it under the exclusive lock first.
    func withReadLock<T>(_ body: () throws -> T) throws -> T {
        for _ in 0..<3 {
            if let result = try lock.withSharedLock(isConsistent: { try !journalNeedsRecovery() }, body) {
                return result
            }
            try lock.withExclusiveLock { try recoverJournal() }
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
            throw StorageError(.io(error.message), entityName: entityName, key: key ?? self.key(fromFileName: name),
                               location: error.path, underlyingError: error)
        } catch {
            throw StorageError(.io(String(describing: error)), entityName: entityName, key: key, underlyingError: error)
        }
    }

    static func directoryInTheWay(entityName: String, key: String?, path: String) -> StorageError {
        StorageError(.corruptRecord("a directory is where the record file should be"), entityName: entityName, key: key, location: path)
    }

    /// `mkdir -p`: creates `path` and missing parents; an existing directory is fine.
    static func createDirectory(_ path: String, fileSystem: any FileSystem) throws(FileSystemError) {
        do throws(FileSystemError) {
            try fileSystem.makeDirectory(path)
        } catch where error.code == EEXIST {
            guard try fileSystem.status(atPath: path)?.isDirectory == true else {
                throw FileSystemError(operation: "mkdir", path: path, code: ENOTDIR)
            }
        } catch where error.code == ENOENT {
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else { throw error }
            try createDirectory(parent, fileSystem: fileSystem)
            try createDirectory(path, fileSystem: fileSystem)
        }
    }
}

extension StorageError {
    /// The kind's detail text, for combining several errors into one message.
    fileprivate var detail: String {
        switch kind {
        case let .corruptRecord(detail), let .io(detail): return detail
        case .decodingFailed: return "the record could not be decoded" + (underlyingError.map { " (\($0))" } ?? "")
        case .encodingFailed: return "the entity could not be encoded"
        case .duplicateID: return "duplicate id"
        case .missingID: return "missing id"
        }
    }
}
