import DAOKit
import DAOKitStoreFormat
import Foundation

/// Reading past unreadable records, listing keys and removing records by key, for
/// ``FileStorageContext``. Kept apart from the read paths in `FileStorageContext.swift`: these
/// collect failures where those throw.
extension FileStorageContext {
    /// Every record file of the type that reads and decodes, in no particular order, and a
    /// failure for each one that does not, naming its file: ``StorageError/Kind/decodingFailed``
    /// for a sound record whose entity does not decode, ``StorageError/Kind/corruptRecord(_:)`` for
    /// a damaged file, a directory or link in a record's place, or a file under another key's name.
    /// - Throws: ``StorageError`` of kind `.io` when the directory cannot be listed or a file
    ///   cannot be read.
    public func fetchReadable<E: Storable>(_ type: E.Type) throws -> ReadableRecords<E, E.ID> {
        if let handleTransaction { return try handleTransaction.fetchReadable(type) }
        return try readableRecordFiles(E.self, olderThan: nil)
    }

    /// The type's record files, listed and read under the read lock, as ``readable(_:files:directoryPath:olderThan:)``
    /// returns them.
    func readableRecordFiles<E: Storable>(_ type: E.Type, olderThan: Int?) throws -> ReadableRecords<E, E.ID> {
        let entityName = E.entityName
        let directoryPath = entityDirectoryPath(entityName)
        let files = try mapErrors(entityName: entityName, key: nil) {
            try withReadLock(entityName: entityName) { pending throws -> [(name: String, contents: FileContents)] in
                try recordFiles(in: directoryPath, around: pending)
            }
        }
        return try readable(E.self, files: files, directoryPath: directoryPath, olderThan: olderThan)
    }

    /// What ``fetchReadable(_:)`` returns for `files`, the record files of the type's folder
    /// `directoryPath` with their contents.
    /// - Parameter olderThan: when given, only the records of an older entity version (and the
    ///   files whose version cannot be read, which fail).
    func readable<E: Storable>(
        _ type: E.Type, files: [(name: String, contents: FileContents)], directoryPath: String,
        olderThan: Int? = nil
    ) throws -> ReadableRecords<E, E.ID> {
        let entityName = E.entityName
        let versioning = try EntityVersioning.of(E.self)
        var result = ReadableRecords<E, E.ID>(values: [], failures: [])
        for (name, contents) in files {
            if let olderThan, case .bytes(let data) = contents, let version = codec.storedVersion(of: data),
                version >= olderThan
            {
                continue
            }
            let path = directoryPath + "/" + name
            let nameKey = spelledOutKey(ofFileName: name)
            switch contents {
            case .absent:
                continue
            case .directory:
                result.failures.append(
                    UnreadableRecord(
                        storageKey: nameKey,
                        error: Self.directoryInTheWay(entityName: entityName, key: nameKey, path: path)))
            case .notRegularFile:
                result.failures.append(
                    UnreadableRecord(
                        storageKey: nameKey,
                        error: Self.notRegularFile(entityName: entityName, key: nameKey, path: path)))
            case .bytes(let data):
                if let nameKey,
                    let entity = codec.decodeCanonicalJSON(E.self, from: data, key: nameKey, versioning: versioning)
                {
                    result.values.append(entity)
                    continue
                }
                do throws(StorageError) {
                    let record = try codec.decode(
                        E.self, from: data, path: path, entityName: entityName, key: nameKey, versioning: versioning)
                    guard fileName(forKey: record.key) == name else {
                        throw StorageError(
                            .corruptRecord(RecordEnvelope.misplacedKey(record.key)),
                            entityName: entityName, key: nameKey ?? record.key, location: path)
                    }
                    result.values.append(record.entity)
                } catch {
                    // A hashed name does not spell its key out; a sound envelope still holds it.
                    let key = nameKey ?? envelopeKey(of: data, path: path, entityName: entityName)
                    result.failures.append(UnreadableRecord(storageKey: key, error: error))
                }
            }
        }
        return result
    }

    /// The storage keys of every record file of the type, in no particular order, without
    /// decoding any entity: from the file name, or for a hashed name from the record's envelope.
    /// A file under a hashed name whose envelope is damaged has no key to list; ``fetchReadable(_:)``
    /// reports it with its path.
    /// - Throws: ``StorageError`` of kind `.io` as ``fetchReadable(_:)``.
    public func storedKeys<E: Storable>(_ type: E.Type) throws -> [String] {
        if let handleTransaction { return try handleTransaction.storedKeys(type) }
        let entityName = E.entityName
        let directoryPath = entityDirectoryPath(entityName)
        return try mapErrors(entityName: entityName, key: nil) {
            try withReadLock(entityName: entityName) { pending throws -> [String] in
                try recordFileNames(in: directoryPath, around: pending).compactMap { name in
                    if let key = spelledOutKey(ofFileName: name) { return key }
                    let path = directoryPath + "/" + name
                    guard case .bytes(let data) = try pending?.contents(of: name) ?? fileSystem.readContents(of: path)
                    else { return nil }
                    return envelopeKey(of: data, path: path, entityName: entityName)
                }
            }
        }
    }

    /// Removes the records under these storage keys without reading them, all or nothing, as
    /// ``delete(_:ids:)`` does; unknown keys are ignored.
    /// - Throws: as ``delete(_:ids:)``.
    public func delete<E: Storable>(_ type: E.Type, storageKeys: [String]) throws {
        if let handleTransaction { return try handleTransaction.delete(type, storageKeys: storageKeys) }
        var seen = Set<String>()
        var changes: [RecordChange] = []
        for key in storageKeys {
            let name = fileName(forKey: key)
            if seen.insert(name).inserted { changes.append(RecordChange(key: key, fileName: name, contents: nil)) }
        }
        guard !changes.isEmpty else { return }
        let directory = entityDirectory(E.entityName)
        let cacheUpdate =
            queryCache.keeps(E.self, directoryName: directory.name)
            ? queryCache.prepare(
                E.self, directoryName: directory.name, records: changes.map { ($0.fileName, $0.key, nil) })
            : nil
        try write(changes, entityName: E.entityName, directory: directory, cacheUpdate: cacheUpdate)
    }

    /// The key a file name spells out and that this store would file under that very name; `nil`
    /// for hashed and foreign names.
    func spelledOutKey(ofFileName name: String) -> String? {
        guard let key = key(fromFileName: name), fileName(forKey: key) == name else { return nil }
        return key
    }

    /// The key in a record's envelope, whatever its entity holds; `nil` when the envelope is damaged.
    private func envelopeKey(of data: Data, path: String, entityName: String) -> String? {
        try? codec.decode(AnyEntity.self, from: data, path: path, entityName: entityName, key: nil, checkingSeal: false)
            .key
    }
}

/// Decodes from any entity without reading it: for reading a record's envelope alone.
private struct AnyEntity: Decodable {
    init(from decoder: any Decoder) throws {}
}
