import DAOKit
import DAOKitFileStore
import DAOKitStoreFormat
import Foundation

/// A record file's envelope, read without knowing the entity's Swift type.
struct StoredRecord: Equatable {
    /// The envelope's `formatVersion`; may be one this release does not support.
    let formatVersion: Int
    /// The record's real key (its id's `storageKey`).
    let key: String
    /// The entity as stored.
    let entity: JSONValue
    /// Whether the record carried a checksum, which matched (version 2 records).
    var isSealed = false
    /// The entity version that wrote it: the envelope's `dataVersion`, 1 when it has none.
    var dataVersion = 1
}

/// Why a record file is not a readable record; the description is a complete sentence fragment
/// that follows the file's path in `verify`'s output.
struct RecordProblem: Error, Equatable, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Reads record files in the documented envelope format: an object (JSON) or dictionary (binary
/// property list) with `formatVersion`, `key` and `entity`.
///
/// It checks what `FileStorageContext` checks before it decodes the entity: the file is not empty,
/// parses, is an envelope, and has an integer `formatVersion` (read first, so that a later layout
/// is reported as a version problem), a string `key` and an `entity`. Whether the entity decodes
/// as its Swift type only the app can tell.
enum RecordReader {
    /// The formats a store can hold, in the order `inspect` lists them.
    static let formats: [FileStorageContext.RecordFormat] = [.json, .propertyList]

    /// The envelope in `data`; the version is not checked against the one DAOKit reads
    /// (`FileStorageContext.RecordFormat.formatVersion`), so that `inspect` can report the
    /// versions it finds.
    static func read(_ data: Data, format: FileStorageContext.RecordFormat) -> Result<StoredRecord, RecordProblem> {
        guard !data.isEmpty else { return .failure(RecordProblem("empty file")) }
        // The checksum first, on the bytes, as `FileStorageContext` checks it.
        var data = data
        var isSealed = false
        var broken = false
        if format == .propertyList {
            switch RecordEnvelope.propertyListSeal(of: data) {
            case .none: break
            case .broken: broken = true
            case .intact: isSealed = true
            }
        } else {
            switch RecordEnvelope.seal(of: data) {
            case .none: break
            case .broken(let bodyStart):
                // What else is wrong says more; the checksum is blamed when the rest would read.
                guard let bodyStart else { return .failure(RecordProblem(RecordEnvelope.checksumMismatch)) }
                data = RecordEnvelope.unsealed(data, bodyStart: bodyStart)
                broken = true
            case .intact(let bodyStart):
                data = RecordEnvelope.unsealed(data, bodyStart: bodyStart)
                isSealed = true
            }
        }
        let document: JSONValue
        do {
            switch format {
            case .json: document = try JSONParser.parse(data)
            case .propertyList: document = try BinaryPropertyListParser.parse(data)
            }
        } catch {
            return .failure(RecordProblem(String(describing: error)))
        }
        guard case .object = document else {
            return .failure(
                RecordProblem("not a record envelope: the top level is \(document.kindDescription), not an object"))
        }
        guard let versionValue = document[member: "formatVersion"] else {
            return .failure(RecordProblem("the record has no \"formatVersion\" field"))
        }
        guard case .number(let versionText) = versionValue, let version = Int(versionText) else {
            return .failure(
                RecordProblem("the record's \"formatVersion\" field is \(versionValue.kindDescription), not an integer")
            )
        }
        guard let keyValue = document[member: "key"] else {
            return .failure(RecordProblem("the record has no \"key\" field"))
        }
        guard case .string(let key) = keyValue else {
            return .failure(RecordProblem("the record's \"key\" field is \(keyValue.kindDescription), not a string"))
        }
        guard let entity = document[member: "entity"] else {
            return .failure(RecordProblem("the record has no \"entity\" field"))
        }
        if broken {
            // As the library reports it: an unknown version first, then the checksum.
            guard RecordEnvelope.readableVersions.contains(version) else {
                return .failure(RecordProblem(RecordEnvelope.unsupportedVersion(version)))
            }
            return .failure(RecordProblem(RecordEnvelope.checksumMismatch))
        }
        var dataVersion = 1
        if let value = document[member: "dataVersion"] {
            guard case .number(let text) = value, let number = Int(text), number >= 1 else {
                return .failure(
                    RecordProblem(
                        "the record's \"dataVersion\" field is \(value.kindDescription), not an entity version"))
            }
            dataVersion = number
        }
        return .success(
            StoredRecord(formatVersion: version, key: key, entity: entity, isSealed: isSealed, dataVersion: dataVersion)
        )
    }
}
