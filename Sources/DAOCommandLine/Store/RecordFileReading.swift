import DAOKit
import DAOKitStoreFormat

extension StoreScan.RecordFile {
    /// The file's size (when it could be read) and its envelope or what is wrong with it; the
    /// format version is not checked, so `inspect` can count the versions it finds.
    func readEnvelope() -> (size: Int?, result: Result<StoredRecord, RecordProblem>) {
        // Read as the store reads it (``FileSystem/readContents(of:)``): a link is never followed,
        // a FIFO never blocks, and both are "not a regular file", as `fetch` reports them.
        let contents: FileContents
        do {
            contents = try files.readContents(of: path)
        } catch {
            if error.refusal != nil { return (nil, .failure(RecordProblem(error.reason))) }
            return (nil, .failure(RecordProblem("cannot be read: \(error.reason)")))
        }
        switch contents {
        case .directory: return (nil, .failure(RecordProblem("a directory is where a record file should be")))
        case .notRegularFile: return (nil, .failure(RecordProblem("not a regular file")))
        case .absent: return (nil, .failure(RecordProblem("disappeared while the store was being read")))
        case .bytes(let data): return (data.count, RecordReader.read(data, format: format))
        }
    }

    /// The record as `FileStorageContext` would accept it: a sound envelope of the supported
    /// format version, in the file its key names. A record in the wrong file would be invisible
    /// to `fetch(id:)`, which looks only where the key says, so it counts as damage.
    func readChecked() -> Result<StoredRecord, RecordProblem> {
        readEnvelope().result.flatMap { record in
            // In the store's own words (``RecordEnvelope``), so that `verify` says what `fetch` throws.
            guard RecordEnvelope.readableVersions.contains(record.formatVersion) else {
                return .failure(RecordProblem(RecordEnvelope.unsupportedVersion(record.formatVersion)))
            }
            guard record.isSealed == (record.formatVersion == RecordEnvelope.formatVersion) else {
                return .failure(
                    RecordProblem(
                        RecordEnvelope.checksumAndVersionDisagree(
                            sealed: record.isSealed, version: record.formatVersion)))
            }
            let expected = format.fileName(forKey: record.key)
            guard expected == name else {
                return .failure(
                    RecordProblem(RecordEnvelope.misplacedKey(record.key) + " (its file would be \(expected))"))
            }
            return .success(record)
        }
    }
}
