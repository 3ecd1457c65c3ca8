import DAOKit
import DAOKitStoreFormat
import Foundation

/// Unique indexes in the file store: checked by the write itself, under the store's exclusive lock
/// (the one every writer in every process takes), so that two contexts or processes cannot both
/// store a value: the second one to take the lock sees the first one's record.
extension FileStorageContext {
    /// Throws ``StorageError/Code/uniqueViolation`` when applying `changes` to the folder of
    /// `entityName` would leave two records with equal values in one of `unique`'s indexes. Runs
    /// under the write lock (after recovery, so the folder holds the committed state): reads the
    /// indexed fields of every record the write leaves alone, as stored, without decoding an
    /// entity; a record that cannot be read has no values to compare.
    ///
    /// A transaction passes `existing`, the record files of the type as it sees them (its own
    /// writes over the committed ones), which are then read instead of the folder.
    func checkUnique(
        _ changes: [RecordChange], unique: StoredUniqueValues, entityName: String, directoryPath: String,
        existing: [(name: String, contents: FileContents)]? = nil
    ) throws {
        let written = Set(changes.map(\.fileName))
        var kept: [UniqueIndexCheck.Entry] = []
        if let existing {
            for (name, contents) in existing where !written.contains(name) {
                guard case .bytes(let data) = contents,
                    let entry = uniqueEntry(
                        of: data, unique: unique, entityName: entityName, path: directoryPath + "/" + name)
                else { continue }
                kept.append(entry)
            }
        } else {
            for name in try recordFileNames(in: directoryPath) where !written.contains(name) {
                guard case .bytes(let data) = try fileSystem.readContents(of: directoryPath + "/" + name),
                    let entry = uniqueEntry(
                        of: data, unique: unique, entityName: entityName, path: directoryPath + "/" + name)
                else { continue }
                kept.append(entry)
            }
        }
        let writing = changes.compactMap { change -> UniqueIndexCheck.Entry? in
            guard let contents = change.contents else { return nil }
            return UniqueIndexCheck.Entry(
                key: change.key,
                tuples: uniqueEntry(of: contents, unique: unique, entityName: entityName, path: change.fileName)?.tuples
                    ?? unique.indexes.map { _ in nil })
        }
        try UniqueIndexCheck.check(entityName: entityName, indexes: unique.indexes, kept: kept, written: writing)
    }

    /// The key and unique values of the record file `data`; `nil` when it cannot be read.
    private func uniqueEntry(of data: Data, unique: StoredUniqueValues, entityName: String, path: String)
        -> UniqueIndexCheck.Entry?
    {
        var key: String?
        let tuples = unique.tuples {
            let decoded = try codec.decode(
                UniqueValueProbe.self, from: data, path: path, entityName: entityName, key: nil)
            key = decoded.key
            return decoded.entity
        }
        return key.map { UniqueIndexCheck.Entry(key: $0, tuples: tuples) }
    }
}
