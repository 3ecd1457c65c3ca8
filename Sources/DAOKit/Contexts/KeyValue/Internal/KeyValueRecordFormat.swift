import DAOKitInternals
import Foundation

/// How ``KeyValueStorageContext`` writes one record: the entity encoded by `JSONEncoder` with
/// sorted keys and unescaped slashes, sealed with a checksum, stored as a string.
///
/// Foundation's default strategies apply, so other tools can read records as plain JSON:
/// `Date` is a number of seconds since 2001-01-01T00:00:00Z (Foundation's reference date, exact),
/// `Data` is Base64 text, `URL` is its absolute string — except a URL with a base, which is
/// `{"base":…,"relative":…}` so that it reads back `==` (see ``RelativeURLCoding``) — and a
/// non-finite floating-point number (or date) is the string `"NaN"`, `"+Infinity"` or
/// `"-Infinity"`, as in the file store's JSON records, so that every value another context stores
/// is stored here too. Sorted keys make equal entities produce equal text, so records diff cleanly.
///
/// **Checksum.** A record is `{"daokit_crc32c":"1a2b3c4d","entity":<the entity>}`: the first
/// field, of a fixed length, holds the CRC-32C (8 hexadecimal digits) of the record's place in the
/// store (`entityName/key` as escaped in the store key, without the namespace) followed by every
/// byte after the field (`"entity":…}`). It is checked on the bytes before any parsing, so a
/// record whose bytes changed, or that was copied under another key, is reported as damaged
/// instead of read as another value. The field's name is the format marker: a record that does not
/// begin with it (nor with text that differs from it in one or two bytes, which is a damaged
/// marker) is one of an earlier release, the bare entity, read unchecked and sealed at its next
/// write. The name is reserved: a record of an earlier release whose first field (sorted) was
/// named within two letters of `daokit_crc32c` would be taken for a damaged one.
///
/// **Entity version.** A record of an entity at a version after 1 (``Storable/schema``) carries it
/// between the checksum and the entity, covered by the checksum:
/// `{"daokit_crc32c":"…","daokit_version":3,"daokit_readable_from":2,"entity":…}`, the second
/// member only when it differs from the version. A record without it is version 1, so an entity
/// that declares nothing writes exactly what it wrote before versions.
enum KeyValueRecordFormat {
    /// `JSONEncoder`/`JSONDecoder` are thread-safe and their configuration never changes after
    /// this point, so one of each is shared instead of allocating per record.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }()
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }()

    private static let sealPrefix = Array(#"{"daokit_crc32c":""#.utf8)
    private static let sealSuffix = Array(#"","#.utf8)
    /// `{"daokit_crc32c":"` + 8 hex digits + `",`: where the checksummed bytes begin.
    static let sealLength = sealPrefix.count + 8 + sealSuffix.count
    private static let entityField = Array(#""entity":"#.utf8)
    private static let versionField = Array(#""daokit_version":"#.utf8)
    private static let readableFromField = Array(#""daokit_readable_from":"#.utf8)

    /// The problem with a record whose bytes no longer match its checksum.
    static let checksumMismatch =
        "the record's checksum does not match its bytes: it changed after it was written, or was copied under another key"
    /// The problem with a record that begins with a checksum but is not a sealed record.
    static let brokenSeal = "the record's checksum field is damaged or the record is truncated"

    /// The checksum of a record under `storeKey` whose sealed bytes are `body`: the store key
    /// without its namespace, a NUL, then the body.
    private static func checksum(storeKey: String, body: UnsafeRawBufferPointer) -> UInt32 {
        let place = storeKey.firstIndex(of: "/").map { storeKey[storeKey.index(after: $0)...] } ?? storeKey[...]
        var seed = CRC32C.checksum(utf8: String(place))
        seed = withUnsafeBytes(of: UInt8(0)) { CRC32C.checksum($0, continuing: seed) }
        return CRC32C.checksum(body, continuing: seed)
    }

    /// The record text of `entity`, to be stored under `location` (its store key), stamped with the
    /// entity's version when it is not 1.
    /// - Parameter versioning: the entity's versions; looked up when not given.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/encodingFailed`` naming the entity and
    ///   key, or ``StorageError/Kind/invalidSchema(_:)`` for a schema that cannot be right.
    static func encode<E: Storable>(
        _ entity: E, versioning: EntityVersioning? = nil, location: String
    ) throws -> String {
        let versioning = try versioning ?? EntityVersioning.of(E.self)
        let json: Data
        do {
            // Through the URL-keeping wrapper, so that a relative URL keeps its base.
            // The reader parses the entity's bytes alone, so the seal around them adds no level.
            json = try JSONNesting.encode(URLKeepingEncodable(value: entity), with: encoder, entity: entity)
        } catch {
            throw StorageError(
                .encodingFailed, entityName: E.entityName, key: entity.id.storageKey,
                location: location, underlyingError: error)
        }
        return sealed(json, versioning: versioning, location: location)
    }

    /// The record text of the entity JSON `json`, sealed and stamped as ``encode(_:versioning:location:)`` says.
    private static func sealed(_ json: Data, versioning: EntityVersioning, location: String) -> String {
        var bytes = [UInt8]()
        bytes.reserveCapacity(sealLength + entityField.count + json.count + 1)
        bytes.append(contentsOf: sealPrefix)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 8))
        bytes.append(contentsOf: sealSuffix)
        if !versioning.isInitial {
            bytes.append(contentsOf: versionField)
            bytes.append(contentsOf: String(versioning.version).utf8)
            bytes.append(UInt8(ascii: ","))
            if versioning.readableFrom != versioning.version {
                bytes.append(contentsOf: readableFromField)
                bytes.append(contentsOf: String(versioning.readableFrom).utf8)
                bytes.append(UInt8(ascii: ","))
            }
        }
        bytes.append(contentsOf: entityField)
        bytes.append(contentsOf: json)
        bytes.append(UInt8(ascii: "}"))
        let crc = bytes.withUnsafeBytes {
            checksum(storeKey: location, body: UnsafeRawBufferPointer(rebasing: $0[sealLength...]))
        }
        for position in 0..<8 { bytes[sealPrefix.count + position] = CRC32C.hexDigit(of: crc, at: position) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The record `text`, about to replace `previous` under `location`, with the fields of
    /// `kept` (the entity's declared removed fields, ``EntityVersioning/keptFields``) that
    /// `previous` holds and `text` does not; `text` itself when there are none (or `previous`'s
    /// seal is broken: there is nothing sound to keep).
    static func keeping(
        _ kept: Set<String>, from previous: String, in text: String, versioning: EntityVersioning, location: String
    ) throws -> String {
        guard let old = entityJSON(of: previous, location: location),
            case .object(let oldFields)? = try? RecordTree.decoder.decode(RecordTree.self, from: old)
        else { return text }
        let keptFields = oldFields.filter { kept.contains($0.name) && $0.value != .null }
        guard !keptFields.isEmpty, let new = entityJSON(of: text, location: location),
            case .object(var fields) = try RecordTree.decoder.decode(RecordTree.self, from: new)
        else { return text }
        let missing = keptFields.filter { field in !fields.contains { $0.name == field.name } }
        if missing.isEmpty { return text }
        fields += missing
        return sealed(Data(RecordTree.object(fields).json.utf8), versioning: versioning, location: location)
    }

    /// The entity a record's text holds, stored under `location` (its store key), resolved from
    /// the version it was written with.
    /// - Throws: ``StorageError`` naming the entity, key and store key:
    ///   ``StorageError/Kind/corruptRecord(_:)`` when the bytes do not match their checksum, the
    ///   checksum field is damaged, or the text is not JSON at all;
    ///   ``StorageError/Kind/decodingFailed`` when it is intact JSON of another shape;
    ///   ``StorageError/Kind/newerVersion(_:)`` when a newer version of the entity wrote it.
    static func decode<E: Storable>(
        _ text: String, as type: E.Type, versioning: EntityVersioning, key: String, location: String
    ) throws -> E {
        let data = Data(text.utf8)
        let entity: Data
        var stamp = Stamp(version: 1, readableFrom: nil)
        switch seal(of: data, location: location) {
        case .none:
            entity = data  // an earlier release's record: the bare entity, unchecked
        case .broken(let problem):
            throw StorageError(.corruptRecord(problem), entityName: E.entityName, key: key, location: location)
        case .intact(let range):
            entity = data[range]
            stamp = Self.stamp(of: data, entityStart: range.lowerBound)
        }
        let plan = try versioning.plan(
            forStoredVersion: stamp.version, readableFrom: stamp.readableFrom, key: key, location: location)
        return try JSONRecordDecoding.decode(
            E.self, from: entity, key: key, location: location, decoder: decoder, plan: plan)
    }

    /// The entity's JSON in the record `text` under `location`: the bare entity of an earlier
    /// release's record, the sealed entity of an intact one; `nil` for a record whose seal is broken.
    static func entityJSON(of text: String, location: String) -> Data? {
        let data = Data(text.utf8)
        switch seal(of: data, location: location) {
        case .none: return data
        case .broken: return nil
        case .intact(let range): return data[range]
        }
    }

    /// The entity version a record carries.
    struct Stamp {
        var version: Int
        var readableFrom: Int?
    }

    /// The version of the record `text` (1 when it carries none), for a save about to replace it;
    /// `nil` when its checksum does not hold, which a save replaces as any damaged record.
    static func storedVersion(of text: String, location: String) -> Int? {
        let data = Data(text.utf8)
        switch seal(of: data, location: location) {
        case .none: return 1
        case .broken: return nil
        case .intact(let range): return stamp(of: data, entityStart: range.lowerBound).version
        }
    }

    /// The stamp of an intact record whose entity starts at `entityStart`: what ``seal(of:location:)``
    /// found between the checksum and the entity.
    private static func stamp(of data: Data, entityStart: Int) -> Stamp {
        let membersEnd = entityStart - entityField.count
        guard membersEnd > sealLength else { return Stamp(version: 1, readableFrom: nil) }
        return data.withUnsafeBytes { bytes in
            var position = sealLength
            return (stampMembers(bytes, &position) ?? nil) ?? Stamp(version: 1, readableFrom: nil)
        }
    }

    /// Reads the version members at `position` (moving past them); `nil` when there are none. The
    /// members are well formed when present: ``seal(of:location:)`` checks them.
    private static func stampMembers(_ bytes: UnsafeRawBufferPointer, _ position: inout Int) -> Stamp?? {
        func member(_ name: [UInt8]) -> Int?? {
            guard bytes[position...].starts(with: name) else { return .some(nil) }
            let digitsStart = position + name.count
            var end = digitsStart
            var value = 0
            while end < bytes.count, end - digitsStart < 9, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end])
            {
                value = value * 10 + Int(bytes[end] - UInt8(ascii: "0"))
                end += 1
            }
            guard end > digitsStart, bytes[digitsStart] != UInt8(ascii: "0"), end < bytes.count,
                bytes[end] == UInt8(ascii: ",")
            else { return nil }
            position = end + 1
            return .some(value)
        }
        guard let version = member(versionField) else { return nil }
        guard let version else { return .some(nil) }
        guard let readableFrom = member(readableFromField) else { return nil }
        return .some(Stamp(version: version, readableFrom: readableFrom))
    }

    /// What a record's bytes say about their checksum.
    enum Seal: Equatable {
        /// No checksum: a record of an earlier release.
        case none
        /// The checksum matches; the entity's JSON is the bytes in `entity`.
        case intact(entity: Range<Int>)
        /// The record begins with a checksum field, but the bytes do not match it (or the field
        /// or the record's frame is damaged): the problem to report.
        case broken(String)
    }

    /// Checks the seal of a record stored under `location`.
    static func seal(of data: Data, location: String) -> Seal {
        data.withUnsafeBytes { bytes -> Seal in
            guard bytes.count >= sealPrefix.count else { return .none }
            // A record that differs from the marker in a byte or two is a sealed record whose
            // marker was damaged, not an earlier release's entity (which would need a field named
            // almost `daokit_crc32c`): read as one, it could decode as a value.
            var differences = 0
            for position in 0..<sealPrefix.count where bytes[position] != sealPrefix[position] { differences += 1 }
            if differences > 2 { return .none }
            if differences > 0 { return .broken(brokenSeal) }
            guard bytes.count >= sealLength + entityField.count + 1,
                bytes[(sealPrefix.count + 8)..<sealLength].elementsEqual(sealSuffix)
            else { return .broken(brokenSeal) }
            guard
                let stored = CRC32C.parseHexDigits(
                    UnsafeRawBufferPointer(rebasing: bytes[sealPrefix.count..<(sealPrefix.count + 8)]))
            else {
                return .broken(brokenSeal)
            }
            let body = UnsafeRawBufferPointer(rebasing: bytes[sealLength...])
            guard checksum(storeKey: location, body: body) == stored else { return .broken(checksumMismatch) }
            // Intact bytes were written by `encode`, so the frame is whole; checked anyway, so
            // that a record crafted by hand with a valid checksum cannot read out of bounds.
            // The entity's version, when it carries one, comes first (see above).
            var entityStart = sealLength
            guard stampMembers(bytes, &entityStart) != nil,
                bytes[entityStart...].starts(with: entityField), body.last == UInt8(ascii: "}")
            else { return .broken(brokenSeal) }
            return .intact(entity: (entityStart + entityField.count)..<(bytes.count - 1))
        }
    }
}
