import Foundation

/// How ``KeyValueStorageContext`` writes one record: the entity encoded by `JSONEncoder` with
/// sorted keys and unescaped slashes, stored as a string.
///
/// Foundation's default strategies apply, so other tools can read records as plain JSON:
/// `Date` is a number of seconds since 2001-01-01T00:00:00Z (Foundation's reference date, exact),
/// `Data` is Base64 text, `URL` is its absolute string — except a URL with a base, which is
/// `{"base":…,"relative":…}` so that it reads back `==` (see ``RelativeURLCoding``) — and a
/// non-finite floating-point number (or date) is the string `"NaN"`, `"+Infinity"` or
/// `"-Infinity"`, as in the file store's JSON records, so that every value another context stores
/// is stored here too. Sorted keys make equal entities produce equal text, so records diff cleanly.
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

    /// The record text of `entity`.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/encodingFailed`` naming the entity and key.
    /// - Parameter versioning: the entity's versions; looked up when not given.
    static func encode<E: Storable>(
        _ entity: E, versioning: EntityVersioning? = nil, location: String
    ) throws -> String {
        let json: Data
        do {
            // Through the URL-keeping wrapper, so that a relative URL keeps its base.
            json = try encoder.encode(URLKeepingEncodable(value: entity))
        } catch {
            throw StorageError(
                .encodingFailed, entityName: E.entityName, key: entity.id.storageKey,
                location: location, underlyingError: error)
        }
        let versioning = try versioning ?? EntityVersioning.of(E.self)
        let stamped = try JSONVersionStamp.stamped(
            json, versioning: versioning, key: entity.id.storageKey, location: location)
        return String(decoding: stamped, as: UTF8.self)
    }

    /// The entity a record's text holds, resolved from the version it was written with
    /// (``JSONVersionStamp``).
    /// - Throws: ``StorageError`` naming the entity, key and store key:
    ///   ``StorageError/Kind/corruptRecord(_:)`` when the text is not JSON at all (or its version
    ///   stamp is damaged), ``StorageError/Kind/decodingFailed`` when it is JSON of another shape,
    ///   ``StorageError/Kind/newerVersion(_:)`` when a newer version of the entity wrote it.
    static func decode<E: Storable>(
        _ text: String, as type: E.Type, versioning: EntityVersioning, key: String, location: String
    ) throws -> E {
        guard JSONVersionStamp.isStamped(text) else {
            let plan = try versioning.plan(forStoredVersion: 1, readableFrom: nil, key: key, location: location)
            return try JSONRecordDecoding.decode(
                E.self, from: Data(text.utf8), key: key, location: location, decoder: decoder, plan: plan)
        }
        guard let stamp = JSONVersionStamp.split(text) else {
            throw StorageError(
                .corruptRecord("the record's daokit_version stamp is damaged"), entityName: E.entityName, key: key,
                location: location)
        }
        let plan = try versioning.plan(
            forStoredVersion: stamp.version, readableFrom: stamp.readableFrom, key: key, location: location)
        return try JSONRecordDecoding.decode(
            E.self, from: stamp.entity, key: key, location: location, decoder: decoder, plan: plan)
    }
}
