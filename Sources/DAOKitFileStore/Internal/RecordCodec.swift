import DAOKit
import DAOKitStoreFormat
import Foundation

/// Encodes entities into record envelopes and decodes them back, classifying what goes wrong.
struct RecordCodec: Sendable {
    /// The version this release writes (with a checksum, see ``RecordEnvelope``).
    static let formatVersion = FileStorageContext.RecordFormat.formatVersion
    /// The version without a checksum: earlier releases' records.
    static let uncheckedFormatVersion = RecordEnvelope.uncheckedFormatVersion

    /// How the envelope of a record without a data version begins, once unsealed.
    private static let unstampedStart = Array(#"{"entity":"#.utf8)
    /// The same after a seal, which takes the envelope's opening brace.
    private static let sealedUnstampedStart = Array(#""entity":"#.utf8)

    let format: FileStorageContext.RecordFormat
    /// Whether records are written sealed with their checksum, as version 2; `false` writes
    /// version 1, as earlier releases did, and only for the benchmarks that measure what the
    /// checksum costs (``FileStorageContext/init(directory:format:writingChecksums:)``).
    let writesChecksums: Bool
    private let jsonEncoder: JSONEncoder
    /// Shared with ``decodeCanonicalJSON(_:from:key:)``, which must decode entities exactly as
    /// ``decode(_:from:path:entityName:key:)`` does.
    let jsonDecoder: JSONDecoder
    private let plistEncoder: PropertyListEncoder
    private let plistDecoder: PropertyListDecoder

    init(format: FileStorageContext.RecordFormat, writesChecksums: Bool = true) {
        self.format = format
        self.writesChecksums = writesChecksums
        let json = JSONEncoder()
        json.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        json.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        jsonEncoder = json
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        jsonDecoder = decoder
        let plist = PropertyListEncoder()
        plist.outputFormat = .binary
        plistEncoder = plist
        plistDecoder = PropertyListDecoder()
    }

    /// The bytes of the record file for `entity` stored under `key`, stamped with the entity's
    /// version when it is not 1 (``RecordEnvelope``'s `dataVersion`).
    func encode<E: Encodable>(_ entity: E, key: String, versioning: EntityVersioning? = nil) throws -> Data {
        let stamped = versioning.flatMap { $0.isInitial ? nil : $0 }
        let dataVersion = stamped?.version
        let dataReadableFrom = stamped.flatMap { $0.readableFrom == $0.version ? nil : $0.readableFrom }
        let version = writesChecksums ? Self.formatVersion : Self.uncheckedFormatVersion
        switch format {
        case .json:
            // Through the URL-keeping wrapper: JSONEncoder alone would drop a relative URL's base.
            let envelope = EncodedRecord(
                formatVersion: version, key: key, dataVersion: dataVersion,
                dataReadableFrom: dataReadableFrom, entity: URLKeepingEncodable(value: entity))
            // The envelope is one level of object around the entity.
            let encoded = try JSONNesting.encode(envelope, with: jsonEncoder, entity: entity, enclosingLevels: 1)
            return writesChecksums ? RecordEnvelope.sealed(encoded) : encoded
        case .propertyList:
            // Property lists keep a URL's base through URL's own Codable. The checksum goes in
            // the trailer's unused bytes, so the file stays a property list (see RecordEnvelope).
            let encoded = try plistEncoder.encode(
                EncodedRecord(
                    formatVersion: version, key: key, dataVersion: dataVersion,
                    dataReadableFrom: dataReadableFrom, entity: entity))
            return writesChecksums ? RecordEnvelope.sealedPropertyList(encoded) : encoded
        }
    }

    /// The record file `contents`, about to replace `previous` at `path`, with the fields of
    /// `kept` (the entity's declared removed fields, ``EntityVersioning/keptFields``) that
    /// `previous` holds and `contents` does not; `contents` itself when there are none (or
    /// `previous` does not read: there is nothing sound to keep).
    func keeping(
        _ kept: Set<String>, from previous: Data, in contents: Data, key: String, versioning: EntityVersioning,
        path: String
    ) throws -> Data {
        guard let old = try? decode(RecordTree.self, from: previous, path: path, entityName: "", key: key),
            case .object(let oldFields) = old.entity
        else { return contents }
        let keptFields = oldFields.filter { kept.contains($0.name) && $0.value != .null }
        if keptFields.isEmpty { return contents }
        guard
            case .object(var fields) = try decode(RecordTree.self, from: contents, path: path, entityName: "", key: key)
                .entity
        else { return contents }
        let missing = keptFields.filter { field in !fields.contains { $0.name == field.name } }
        if missing.isEmpty { return contents }
        fields += missing
        return try encode(RecordTree.object(fields), key: key, versioning: versioning)
    }

    /// The entity version of the record file `data` (1 when it carries none), for a save that is
    /// about to replace it; `nil` when the file is not a record this release reads, which a save
    /// replaces as it always has.
    func storedVersion(of data: Data) -> Int? {
        switch format {
        case .json:
            // Sorted keys put the data version before the entity: a record whose envelope begins
            // with its entity is version 1, known without parsing it (the common case, on every
            // save). A sealed record is read as it is: its seal is one more member, which
            // `StoredVersion` ignores, and the checksum is not this question's to check.
            let entityAt =
                RecordEnvelope.sealedBodyStart(of: data).map { ($0, Self.sealedUnstampedStart) }
                ?? (0, Self.unstampedStart)
            if data.dropFirst(entityAt.0).starts(with: entityAt.1) { return 1 }
            return (try? jsonDecoder.decode(StoredVersion.self, from: data))?.dataVersion ?? 1
        case .propertyList:
            return (try? plistDecoder.decode(StoredVersion.self, from: data))?.dataVersion ?? 1
        }
    }

    /// Decodes a record file into its key and entity. Everything wrong with the envelope (empty,
    /// truncated, not the format, an unknown version) is `.corruptRecord` with a detail; an entity
    /// that does not decode from a sound envelope is `.decodingFailed`.
    ///
    /// Readers that know which key the file must hold try ``decodeCanonicalJSON(_:from:key:)``
    /// first, and come here when it returns `nil`.
    /// - Parameter key: the key the caller asked for, if any, to name in errors.
    /// - Parameter checkingSeal: `false` only to read the key of a record already known to be
    ///   damaged, so as to name it.
    /// - Parameter versioning: the entity's versions, to resolve a record of an older version and
    ///   refuse one of a newer; `nil` reads the entity as it is (only to name a damaged record).
    func decode<E: Decodable>(
        _ type: E.Type, from data: Data, path: String, entityName: String, key: String?, checkingSeal: Bool = true,
        versioning: EntityVersioning? = nil
    ) throws(StorageError) -> (key: String, entity: E) {
        func corrupt(_ detail: String, _ underlying: (any Error)? = nil) -> StorageError {
            StorageError(
                .corruptRecord(detail), entityName: entityName, key: key, location: path, underlyingError: underlying)
        }
        if data.isEmpty { throw corrupt("empty file") }
        // The checksum first, on the bytes: a record whose bytes changed is damage, whatever
        // they would parse as.
        var data = data
        var expectedVersion = Self.uncheckedFormatVersion
        var broken = false
        if format == .propertyList {
            switch RecordEnvelope.propertyListSeal(of: data) {
            case .none: break
            case .broken:
                expectedVersion = Self.formatVersion
                broken = checkingSeal
            case .intact:
                expectedVersion = Self.formatVersion
            }
        } else {
            switch RecordEnvelope.seal(of: data) {
            case .none: break
            case .broken(let bodyStart):
                // Damaged either way; what else is wrong (truncated, not an envelope) says more
                // than the checksum, so it is looked for first, and the checksum blamed only
                // when the rest would have read.
                guard let bodyStart else { throw corrupt(RecordEnvelope.checksumMismatch) }
                data = RecordEnvelope.unsealed(data, bodyStart: bodyStart)
                expectedVersion = Self.formatVersion
                broken = checkingSeal
            case .intact(let bodyStart):
                data = RecordEnvelope.unsealed(data, bodyStart: bodyStart)
                expectedVersion = Self.formatVersion
            }
        }
        let decoded: (key: String, entity: E, version: Int)
        do {
            decoded = try EnvelopeDecoding.$versioning.withValue(versioning.map { ($0, key, path) }) {
                try decodeEnvelope(E.self, from: data)
            }
        } catch let error as StorageError {
            throw error
        } catch let error as UnsupportedFormatVersion {
            throw corrupt(Self.unsupportedVersion(error.version), error)
        } catch let error as DecodingError {
            if Self.isInsideEntity(error) {
                throw StorageError(
                    .decodingFailed, entityName: entityName, key: key, location: path, underlyingError: error)
            }
            // JSONDecoder calls a number that does not fit its field "not valid JSON", without a
            // path: look at the parsed record before believing it.
            if format == .json, JSONDecodingDiagnosis.claimsInvalidJSON(error),
                let record = JSONDecodingDiagnosis.parse(data)
            {
                if let problem = Self.envelopeProblem(in: record) { throw corrupt(problem, error) }
                throw StorageError(
                    .decodingFailed, entityName: entityName, key: key, location: path,
                    underlyingError: JSONDecodingDiagnosis.bestError(error, entity: record["entity"], as: E.self))
            }
            throw corrupt(Self.envelopeProblem(error, format: format), error)
        } catch {
            throw corrupt("unreadable record: \(error)", error)
        }
        if broken { throw corrupt(RecordEnvelope.checksumMismatch) }
        guard decoded.version == expectedVersion else {
            throw corrupt(
                RecordEnvelope.checksumAndVersionDisagree(
                    sealed: expectedVersion == Self.formatVersion, version: decoded.version))
        }
        return (decoded.key, decoded.entity)
    }

    /// The envelope's key, entity and format version, the entity resolved from its data version
    /// when ``EnvelopeDecoding/versioning`` is set.
    private func decodeEnvelope<E: Decodable>(_ type: E.Type, from data: Data) throws -> (
        key: String, entity: E, version: Int
    ) {
        switch format {
        case .json:
            return try RelativeURLCoding.decode(
                data,
                plain: { data in
                    let record = try jsonDecoder.decode(DecodedRecord<E>.self, from: data)
                    return (record.key, record.entity, record.version)
                },
                keepingURLs: { data in
                    let record = try jsonDecoder.decode(DecodedRecord<URLKeepingDecodable<E>>.self, from: data)
                    return (record.key, record.entity.value, record.version)
                })
        case .propertyList:
            let record = try plistDecoder.decode(DecodedRecord<E>.self, from: data)
            return (record.key, record.entity, record.version)
        }
    }

    private static func isInsideEntity(_ error: DecodingError) -> Bool {
        let context: DecodingError.Context
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            context = c
        @unknown default: return false
        }
        return context.codingPath.first?.stringValue == DecodedRecord<Int>.CodingKeys.entity.stringValue
    }

    /// The problem with a record of another format version, however it was read.
    private static func unsupportedVersion(_ version: some BinaryInteger) -> String {
        RecordEnvelope.unsupportedVersion(version)
    }

    /// What is wrong with a parsed JSON record's envelope; `nil` when it is sound, so that what
    /// failed is the entity.
    private static func envelopeProblem(in record: JSONValue) -> String? {
        guard case .object = record else { return "the file is not a record envelope" }
        switch record["formatVersion"] {
        case nil: return "the record has no formatVersion field"
        case .integer(let version) where !RecordEnvelope.readableVersions.contains(Int(truncatingIfNeeded: version)):
            return unsupportedVersion(version)
        case .unsigned(let version):
            return unsupportedVersion(version)
        case .integer: break
        default: return "the record's formatVersion field has the wrong type"
        }
        switch record["key"] {
        case nil: return "the record has no key field"
        case .string: break
        default: return "the record's key field has the wrong type"
        }
        return record["entity"] == nil ? "the record has no entity field" : nil
    }

    private static func envelopeProblem(_ error: DecodingError, format: FileStorageContext.RecordFormat) -> String {
        switch error {
        case .keyNotFound(let key, _):
            return "the record has no \(key.stringValue) field"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            if context.codingPath.isEmpty { return "the file is not a record envelope" }
            return
                "the record's \(context.codingPath.map(\.stringValue).joined(separator: ".")) field has the wrong type"
        case .dataCorrupted:
            return format == .json ? "truncated or not valid JSON" : "truncated or not a property list"
        @unknown default:
            return "unreadable record"
        }
    }
}

/// Thrown while decoding an envelope whose version this release does not know.
struct UnsupportedFormatVersion: Error {
    let version: Int
}

private struct EncodedRecord<Entity: Encodable>: Encodable {
    let formatVersion: Int
    let key: String
    /// The entity's version; `nil` (left out) for version 1, as every record before versions.
    let dataVersion: Int?
    /// The oldest version that reads this record; `nil` (left out) when it is `dataVersion`.
    let dataReadableFrom: Int?
    let entity: Entity
}

/// The data version of a record, alone, for a save about to replace it.
private struct StoredVersion: Decodable {
    let dataVersion: Int?
}

/// What the envelope decoder needs to resolve the entity: the entity's versions and, for errors,
/// the key asked for and the file. A task-local value, because `init(from:)` takes no arguments.
enum EnvelopeDecoding {
    @TaskLocal static var versioning: (EntityVersioning, String?, String)?
}

private struct DecodedRecord<Entity: Decodable>: Decodable {
    enum CodingKeys: String, CodingKey {
        case formatVersion, key, entity, dataVersion, dataReadableFrom
    }

    let key: String
    let entity: Entity
    let version: Int

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // The version comes first so that a future layout is reported as such, not as a
        // confusing field error. Whether it agrees with the checksum, the caller checks.
        version = try container.decode(Int.self, forKey: .formatVersion)
        guard RecordEnvelope.readableVersions.contains(version) else {
            throw UnsupportedFormatVersion(version: version)
        }
        key = try container.decode(String.self, forKey: .key)
        guard let (versioning, askedKey, path) = EnvelopeDecoding.versioning else {
            entity = try container.decode(Entity.self, forKey: .entity)
            return
        }
        let plan = try versioning.plan(
            forStoredVersion: try container.decodeIfPresent(Int.self, forKey: .dataVersion) ?? 1,
            readableFrom: try container.decodeIfPresent(Int.self, forKey: .dataReadableFrom),
            key: askedKey ?? key, location: path)
        guard let plan else {
            entity = try container.decode(Entity.self, forKey: .entity)
            return
        }
        let recordKey = askedKey ?? key
        entity = try ResolvedDecoding.decode(Entity.self, plan: plan, key: recordKey) { resolved in
            try container.decode(resolved, forKey: .entity)
        }
    }
}
