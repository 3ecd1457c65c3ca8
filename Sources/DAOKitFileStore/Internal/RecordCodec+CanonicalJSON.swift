import DAOKit
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
    private static let canonicalVersionAndKey = Array(#","formatVersion":\#(formatVersion),"key":""#.utf8)
    private static let canonicalEnd = Array(#""}"#.utf8)

    /// The entity of a record in exactly the layout this release writes, holding `key`; `nil`
    /// when the file is laid out in any other way or the entity does not decode (see above).
    func decodeCanonicalJSON<E: Decodable>(_ type: E.Type, from data: Data, key: String) -> E? {
        guard format == .json, let entity = Self.canonicalEntityRange(in: data, key: key) else { return nil }
        return try? RelativeURLCoding.decode(
            data[entity], plain: { try jsonDecoder.decode(E.self, from: $0) },
            keepingURLs: { try jsonDecoder.decode(URLKeepingDecodable<E>.self, from: $0).value })
    }

    /// Where the entity's bytes are in `data`, when `data` is `{"entity":`, something, and the
    /// version and `key` exactly as this release writes them; otherwise `nil`.
    static func canonicalEntityRange(in data: Data, key: String) -> Range<Data.Index>? {
        var key = key
        return key.withUTF8 { key -> Range<Data.Index>? in
            guard key.allSatisfy(isVerbatimInJSONString) else { return nil }
            let trailerLength = canonicalVersionAndKey.count + key.count + canonicalEnd.count
            return data.withUnsafeBytes { bytes -> Range<Data.Index>? in
                guard bytes.count > canonicalPrefix.count + trailerLength,
                      bytes.starts(with: canonicalPrefix) else { return nil }
                let trailerStart = bytes.count - trailerLength
                let keyStart = trailerStart + canonicalVersionAndKey.count
                let endStart = keyStart + key.count
                guard bytes[trailerStart..<keyStart].elementsEqual(canonicalVersionAndKey),
                      bytes[keyStart..<endStart].elementsEqual(key),
                      bytes[endStart...].elementsEqual(canonicalEnd) else { return nil }
                return (data.startIndex + canonicalPrefix.count)..<(data.startIndex + trailerStart)
            }
        }
    }

    /// Whether a byte of a key stands for itself inside a JSON string, with no escape: printable
    /// ASCII except the quote and the backslash.
    private static func isVerbatimInJSONString(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }
}
