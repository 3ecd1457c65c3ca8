import Foundation

/// Where a JSON record that is the entity's own object carries its version: the key-value
/// context's records. A record written by version 1 carries nothing and is exactly the entity's
/// JSON; a later version is written as the object's first members,
///
/// ```
/// {"daokit_version":3,"daokit_readable_from":2,…the entity's members…}
/// ```
///
/// with `daokit_readable_from` only when it differs from the version. First and in this exact
/// spelling, so that reading a record tells its version from its first bytes, without parsing:
/// a record that does not begin so is version 1. The entity decodes from the object without them.
package enum JSONVersionStamp {
    private static let versionPrefix = Array(#"{"daokit_version":"#.utf8)
    private static let readableMember = Array(#","daokit_readable_from":"#.utf8)

    /// What a record's stamp says, and the entity's JSON without it.
    package struct Stamp {
        package let version: Int
        package let readableFrom: Int?
        package let entity: Data
    }

    /// `json` (an entity's JSON object) stamped with `versioning`'s version; `json` itself for an
    /// entity that declares nothing.
    /// - Throws: ``StorageError`` with ``StorageError/Kind/encodingFailed`` when a versioned
    ///   entity does not encode as a JSON object, which is the only place its version can go.
    package static func stamped(
        _ json: Data, versioning: EntityVersioning, key: String, location: String
    ) throws(StorageError) -> Data {
        if versioning.isInitial { return json }
        guard json.first == UInt8(ascii: "{") else {
            throw StorageError(
                .encodingFailed, entityName: versioning.entityName, key: key, location: location,
                underlyingError: EncodingError.invalidValue(
                    json,
                    EncodingError.Context(
                        codingPath: [],
                        debugDescription:
                            "an entity with a version other than 1 must encode as a keyed container (a JSON object), "
                            + "which its version is stored in")))
        }
        var out = Data(versionPrefix)
        out.append(contentsOf: String(versioning.version).utf8)
        if versioning.readableFrom != versioning.version {
            out.append(contentsOf: readableMember)
            out.append(contentsOf: String(versioning.readableFrom).utf8)
        }
        let members = json.dropFirst()
        if members.first != UInt8(ascii: "}") { out.append(UInt8(ascii: ",")) }
        out.append(members)
        return out
    }

    /// Whether `text` begins with a version stamp.
    package static func isStamped(_ text: String) -> Bool {
        text.utf8.starts(with: versionPrefix)
    }

    /// The stamp of a record that ``isStamped(_:)``, and the entity's JSON without it; `nil` when
    /// the stamp is not one this code writes (damage).
    package static func split(_ text: String) -> Stamp? {
        let bytes = Array(text.utf8)
        var position = versionPrefix.count
        func number() -> Int? {
            let start = position
            var value = 0
            while position < bytes.count, position - start < 9,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position])
            {
                value = value * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                position += 1
            }
            return position > start && bytes[start] != UInt8(ascii: "0") ? value : nil
        }
        guard bytes.starts(with: versionPrefix), let version = number() else { return nil }
        var readableFrom: Int?
        if bytes[position...].starts(with: readableMember) {
            position += readableMember.count
            guard let number = number() else { return nil }
            readableFrom = number
        }
        guard position < bytes.count else { return nil }
        var entity = Data([UInt8(ascii: "{")])
        switch bytes[position] {
        case UInt8(ascii: ","): entity.append(contentsOf: bytes[(position + 1)...])
        case UInt8(ascii: "}"): entity.append(contentsOf: bytes[position...])
        default: return nil
        }
        return Stamp(version: version, readableFrom: readableFrom, entity: entity)
    }

    /// The version of the record `text`: 1 when it carries none; `nil` when its stamp is damaged.
    package static func version(of text: String) -> Int? {
        isStamped(text) ? split(text)?.version : 1
    }
}
