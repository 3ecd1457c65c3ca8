import DAOKit
import DAOKitStoreFormat
import Foundation

/// The shortcut for reading JSON records as this release writes them.
///
/// `JSONEncoder` with sorted keys writes every record as
///
/// ```
/// {"entity":<entity>,"formatVersion":1,"key":"<key>"}
/// ```
///
/// with nothing before or after. Decoding that whole envelope costs markedly more than decoding
/// the entity alone: `JSONDecoder` builds a dictionary of the envelope's fields and decodes the
/// version and the key through `Codable`. When the caller knows which key the file
/// must hold (``FileStorageContext/fetch(_:id:)`` asked for it, ``FileStorageContext/fetchAll(_:)``
/// reads it from the file name), the shortcut checks the bytes around the entity instead, and
/// decodes only the entity.
///
/// Why that reads exactly what the whole envelope would:
/// - the bytes before the entity are `{"entity":`, and after it `,"formatVersion":1,"key":"`, the
///   key's bytes and `"}`, compared byte for byte; the key is taken only when every byte is
///   printable ASCII other than `"` and `\`, which JSON strings hold as they are, so the string in
///   the file is the key;
/// - `JSONDecoder` accepts the bytes in between only if they are one JSON value with nothing but
///   white space around it. Then the file is an object with exactly these three fields, whatever
///   the entity holds, so a file whose envelope differs (an extra field, a duplicated one, another
///   version) can never pass: its middle is not one value.
///
/// Anything else — another layout (such as `jq`'s pretty printing), a key with other characters,
/// an entity that does not decode, any error at all — returns `nil`, and the caller decodes the
/// whole envelope, which accepts what is valid and names what is wrong exactly as before. The
/// one thing an entity can tell apart is `Decoder.codingPath`, which is empty in the shortcut
/// rather than `["entity"]`; errors never come from the shortcut, so they still carry the full path.
extension RecordCodec {
    private static let canonicalPrefix = Array(#"{"entity":"#.utf8)
    /// After the seal (``RecordEnvelope/sealed(_:)``), which replaces the opening brace.
    private static let sealedCanonicalPrefix = Array(#""entity":"#.utf8)
    private static let canonicalVersionAndKey = Array(#","formatVersion":\#(formatVersion),"key":""#.utf8)
    private static let uncheckedCanonicalVersionAndKey = Array(
        #","formatVersion":\#(uncheckedFormatVersion),"key":""#.utf8)
    private static let canonicalEnd = Array(#""}"#.utf8)

    /// The entity of a record in exactly the layout this release writes, holding `key`; `nil`
    /// when the file is laid out in any other way or the entity does not decode (see above).
    ///
    /// A sealed record may carry its data version before the entity (`"dataReadableFrom":2,`,
    /// `"dataVersion":3,`, as sorted keys place them); a record of an older version is resolved
    /// as `versioning` says. A record this code may not read (a newer version) returns `nil`, and
    /// the whole-envelope decoder reports it. Without `versioning`, only unstamped records pass.
    func decodeCanonicalJSON<E: Decodable>(
        _ type: E.Type, from data: Data, key: String, versioning: EntityVersioning? = nil
    ) -> E? {
        guard format == .json, let found = Self.canonicalEntity(in: data, key: key) else { return nil }
        let plan: ResolutionPlan?
        if let versioning {
            // Not `try?`: it would flatten the plan's "none needed" (`nil`, the common case) into
            // "refused", and send every current record the long way.
            do {
                plan = try versioning.plan(
                    forStoredVersion: found.version, readableFrom: found.readableFrom, key: key, location: "")
            } catch {
                return nil
            }
        } else {
            guard found.version == 1 else { return nil }
            plan = nil
        }
        let bytes = data[found.range]
        guard let plan else {
            return try? RelativeURLCoding.decode(
                bytes, plain: { try jsonDecoder.decode(E.self, from: $0) },
                keepingURLs: { try jsonDecoder.decode(URLKeepingDecodable<E>.self, from: $0).value })
        }
        return try? ResolvedDecoding.decode(E.self, plan: plan, key: key) { resolved in
            try RelativeURLCoding.decode(
                bytes, plain: { try jsonDecoder.decode(resolved, from: $0) },
                keepingURLs: { try jsonDecoder.decode(URLKeepingDecodable<Resolved<E>>.self, from: $0).value })
        }
    }

    /// Where the entity's bytes are in `data` (see ``canonicalEntity(in:key:)``).
    static func canonicalEntityRange(in data: Data, key: String) -> Range<Data.Index>? {
        canonicalEntity(in: data, key: key)?.range
    }

    private static let dataReadableFromMember = Array(#""dataReadableFrom":"#.utf8)
    private static let dataVersionMember = Array(#""dataVersion":"#.utf8)

    /// Where the entity's bytes are in `data`, and its data version, when `data` is `{"entity":`
    /// (after a seal, optionally preceded by the data version members), something, and the
    /// version and `key` exactly as this release writes them; otherwise `nil`.
    ///
    /// A sealed record (version 2) counts only when its checksum matches; an unsealed one must be
    /// version 1. A broken seal returns `nil`: the whole-envelope decoder reports it.
    static func canonicalEntity(in data: Data, key: String) -> (
        range: Range<Data.Index>, version: Int, readableFrom: Int?
    )? {
        var version = 1
        var readableFrom: Int?
        let prefix: [UInt8]
        let versionAndKey: [UInt8]
        let prefixStart: Int
        switch RecordEnvelope.seal(of: data) {
        case .broken: return nil
        case .none: (prefix, versionAndKey, prefixStart) = (canonicalPrefix, uncheckedCanonicalVersionAndKey, 0)
        case .intact(let bodyStart):
            guard let stamp = data.withUnsafeBytes({ versionStamp(in: $0, from: bodyStart) }) else { return nil }
            if let stamped = stamp.version {
                version = stamped
                readableFrom = stamp.readableFrom
            } else if stamp.readableFrom != nil {
                return nil
            }
            (prefix, versionAndKey, prefixStart) = (sealedCanonicalPrefix, canonicalVersionAndKey, stamp.end)
        }
        var key = key
        return key.withUTF8 { key -> Range<Data.Index>? in
            guard key.allSatisfy(isVerbatimInJSONString) else { return nil }
            let trailerLength = versionAndKey.count + key.count + canonicalEnd.count
            return data.withUnsafeBytes { bytes -> Range<Data.Index>? in
                let entityStart = prefixStart + prefix.count
                guard bytes.count > entityStart + trailerLength,
                    bytes[prefixStart..<entityStart].elementsEqual(prefix)
                else { return nil }
                let trailerStart = bytes.count - trailerLength
                let keyStart = trailerStart + versionAndKey.count
                let endStart = keyStart + key.count
                guard bytes[trailerStart..<keyStart].elementsEqual(versionAndKey),
                    bytes[keyStart..<endStart].elementsEqual(key),
                    bytes[endStart...].elementsEqual(canonicalEnd)
                else { return nil }
                return (data.startIndex + entityStart)..<(data.startIndex + trailerStart)
            }
        }.map { (range: $0, version: version, readableFrom: readableFrom) }
    }

    /// The data version members a sealed record's body may begin with, as sorted keys place them
    /// (`"dataReadableFrom":2,"dataVersion":3,`), and where the bytes after them start; `nil` when
    /// a member is there but not a small decimal followed by a comma.
    ///
    /// A function of its own rather than a closure over the caller's variables: captured and
    /// mutated variables would be boxed on the heap, and every access checked for exclusivity at
    /// run time, on every record read.
    private static func versionStamp(in bytes: UnsafeRawBufferPointer, from start: Int) -> (
        readableFrom: Int?, version: Int?, end: Int
    )? {
        var position = start
        func member(_ name: [UInt8]) -> Int?? {
            guard bytes[position...].starts(with: name) else { return .some(nil) }
            let digitsStart = position + name.count
            var end = digitsStart
            var value = 0
            while end < bytes.count, end - digitsStart < 9,
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[end])
            {
                value = value * 10 + Int(bytes[end] - UInt8(ascii: "0"))
                end += 1
            }
            guard end > digitsStart, end < bytes.count, bytes[end] == UInt8(ascii: ",") else { return nil }
            position = end + 1
            return .some(value)
        }
        guard let readableFrom = member(dataReadableFromMember), let version = member(dataVersionMember) else {
            return nil
        }
        return (readableFrom, version, position)
    }

    /// Whether a byte of a key stands for itself inside a JSON string, with no escape: printable
    /// ASCII except the quote and the backslash.
    private static func isVerbatimInJSONString(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }
}
