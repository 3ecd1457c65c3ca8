import DAOKit
import Foundation

/// An entity as one JSON object, with the kind of each top-level field: the record format of
/// storage contexts that keep an entity in a JSON column (`PostgresStorageContext`'s `jsonb`).
///
/// A building block for SQL contexts (the PostgreSQL package's, or your own), not app API. It
/// shares the SQLite context's row encoder, so a field is classified exactly as the SQLite context
/// classifies a column value, in the same single pass that writes the JSON:
/// - `Date` is a number of seconds since 2001-01-01T00:00:00Z, `Data` Base64 text, `UUID` its
///   `uuidString`, `URL` its absolute string (or `{"base":…,"relative":…}`, see
///   `RelativeURLCoding`), `Decimal` a number, as `JSONEncoder` writes them, so
///   `JSONDecoder` reads the record back;
/// - a `Double` is its shortest round-trip decimal, and NaN and the infinities are the strings
///   `"NaN"`, `"+Infinity"`, `"-Infinity"` (decoded back by ``decode(_:from:key:location:)``),
///   for a `Date` as for a number;
/// - -0.0 (a `Double`, a `Float`, a `Date`'s seconds), at the top or nested, is the string
///   U+10FFFF `-0` (``negativeZero``), since `jsonb` keeps numbers as `numeric`, which has no
///   negative zero; its kind stays the number's, and ``decode(_:from:key:location:)`` reads it
///   back as the number -0.0;
/// - a nested value is its `JSONEncoder` text;
/// - no string holds U+0000, which PostgreSQL's `text` and `jsonb` refuse: it is written as
///   U+10FFFF followed by `0`, and U+10FFFF itself (a noncharacter, which text almost never
///   holds) as U+10FFFF followed by `1`; ``decode(_:from:key:location:)`` undoes it, and
///   ``escaped(_:)`` and ``unescaped(_:)`` do the same for keys kept in a text column.
///
/// The kinds let a context know, for every row it stores, which values its SQL compares as Swift
/// does: a JSON number may be an integer, a `Double` or a `Date`, a JSON string a `String`, a
/// `UUID` or Base64 `Data`.
public enum JSONRecord {
    /// What a top-level field held in one record.
    public enum FieldKind: String, Sendable, Hashable, CaseIterable {
        /// A `Bool`: JSON `true` or `false`.
        case bool
        /// An integer that fits in `Int64`: a JSON number.
        case integer
        /// A `UInt64` above `Int64.max`: a JSON number.
        case bigUnsigned
        /// A finite `Double` or `Float`: a JSON number.
        case real
        /// NaN or an infinity: a JSON string.
        case nonFinite
        /// A `String` of ASCII characters only, which byte order sorts as Swift does.
        case asciiString
        /// A `String` with other characters.
        case string
        /// Seconds since 2001-01-01: a JSON number.
        case date
        /// A `UUID`: its `uuidString`, a JSON string.
        case uuid
        /// A `URL`: its absolute string, or `{"base":…,"relative":…}` for a URL with a base.
        case url
        /// `Data`: Base64 text, a JSON string.
        case data
        /// A JSON number.
        case decimal
        /// A keyed or unkeyed container, which a query reads as `nil`.
        case container
        /// A field of an entity that does not encode as a keyed container at the top; never
        /// compared but in Swift.
        case opaque
    }

    /// One encoded entity.
    public struct Encoded: Sendable {
        /// The entity as a JSON object.
        public var json: String
        /// The kind of every top-level field that is not `nil`, in the order `encode(to:)` wrote them.
        public var fields: [(name: String, kind: FieldKind)]
    }

    /// The record of `entity`.
    /// - Throws: `StorageError` with `StorageError.Kind.encodingFailed` naming the entity and
    ///   key when its `encode(to:)` throws.
    public static func encode<E: Storable>(_ entity: E) throws -> Encoded {
        let row: SQLiteEncodedRow
        do {
            row = try SQLiteRowEncoder.row(of: entity)
        } catch {
            throw StorageError(
                .encodingFailed, entityName: E.entityName, key: entity.id.storageKey, underlyingError: error)
        }
        var json = "{"
        var fields: [(name: String, kind: FieldKind)] = []
        fields.reserveCapacity(row.names.count)
        for position in row.names.indices {
            if position > 0 { json += "," }
            appendString(row.names[position], to: &json)
            json += ":"
            let kind = append(row.values[position], row.kinds[position], to: &json)
            if let kind { fields.append((row.names[position], kind)) }
        }
        json += "}"
        return Encoded(json: json, fields: fields)
    }

    /// `JSONDecoder` as the records need it: it reads back the non-finite numbers ``encode(_:)``
    /// writes as strings. Thread-safe and never reconfigured.
    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }()

    /// The entity a record holds.
    /// - Parameters:
    ///   - key: the record's storage key, named in errors: evaluated only when the record does not
    ///     decode, so that reading many records makes no key string for the ones that do.
    ///   - location: where the record lives (a server and table), named in errors.
    /// - Throws: `StorageError` naming the entity, key and location:
    ///   `StorageError.Kind.corruptRecord(_:)` when the bytes are not JSON,
    ///   `StorageError.Kind.decodingFailed` when they are JSON of another shape.
    public static func decode<E: Storable>(
        _ type: E.Type, from stored: Data, key: @autoclosure () -> String, location: String
    ) throws -> E {
        try JSONRecordDecoding.decode(
            E.self, from: unescapedJSON(stored), key: key(), location: location, decoder: decoder)
    }

    /// The entity a record holds, resolved through `plan` when an older version wrote it
    /// (``Versioning/decode(_:from:storedVersion:readableFrom:key:location:)``).
    static func decode<E: Storable>(
        _ type: E.Type, from stored: Data, key: @autoclosure () -> String, location: String, plan: ResolutionPlan?
    ) throws -> E {
        try JSONRecordDecoding.decode(
            E.self, from: unescapedJSON(stored), key: key(), location: location, decoder: decoder, plan: plan)
    }

    /// Appends the JSON of one column value; returns its kind, `nil` for `nil`.
    private static func append(_ value: SQLiteValue, _ kind: SQLiteFieldKinds, to json: inout String) -> FieldKind? {
        switch value {
        case .null:
            json += "null"
            return nil
        case .integer(let number):
            if kind == .bool {
                json += number == 0 ? "false" : "true"
                return .bool
            }
            json += String(number)
            return .integer
        case .real(let number):
            if !number.isFinite {
                // A Date's NaN arrives here (a Double's as text): NaN is neither infinity.
                json += number.isNaN ? "\"NaN\"" : number > 0 ? "\"+Infinity\"" : "\"-Infinity\""
                return .nonFinite
            }
            if number == 0 && number.sign == .minus {
                json += negativeZero
                return kind == .date ? .date : .real
            }
            // Swift's description is the shortest decimal that reads back as the same Double, and
            // always a valid JSON number for a finite value.
            json += number.description
            return kind == .date ? .date : .real
        case .blob(let data):
            appendString(data.base64EncodedString(), to: &json)
            return .data
        case .text(let text):
            switch kind {
            case .bigUnsigned, .decimal:
                json += text
                return kind == .decimal ? .decimal : .bigUnsigned
            case .nan:
                json += "\"NaN\""
                return .nonFinite
            case .json, .opaque:
                json += escapedJSON(text)
                return kind == .json ? .container : .opaque
            case .url:
                // A URL with a base is its `{"base":…,"relative":…}` object already.
                if text.hasPrefix("{") { json += text } else { appendString(text, to: &json) }
                return .url
            case .uuid:
                appendString(text, to: &json)
                return .uuid
            default:
                appendString(text, to: &json)
                // NUL is stored escaped, so a string holding it does not sort by its bytes.
                return text.utf8.allSatisfy { $0 > 0 && $0 < 0x80 } ? .asciiString : .string
            }
        }
    }

    /// Appends `text` as a JSON string literal, NUL and U+10FFFF escaped.
    private static func appendString(_ text: String, to json: inout String) {
        json += "\""
        let utf8 = text.utf8
        var plainStart = utf8.startIndex
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            var replacement: String?
            var next = utf8.index(after: index)
            switch byte {
            case 0: replacement = escapeMark + "0"
            case UInt8(ascii: "\""): replacement = "\\\""
            case UInt8(ascii: "\\"): replacement = "\\\\"
            case UInt8(ascii: "\n"): replacement = "\\n"
            case UInt8(ascii: "\r"): replacement = "\\r"
            case UInt8(ascii: "\t"): replacement = "\\t"
            case 0x01..<0x20:
                let hex = String(byte, radix: 16)
                replacement = "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            case escapeBytes[0] where utf8[index...].starts(with: escapeBytes):
                replacement = escapeMark + "1"
                next = utf8.index(index, offsetBy: escapeBytes.count)
            default: break
            }
            if let replacement {
                json += String(Substring(utf8[plainStart..<index]))
                json += replacement
                plainStart = next
            }
            index = next
        }
        json += String(Substring(utf8[plainStart..<utf8.endIndex]))
        json += "\""
    }

    /// The mark of an escaped NUL (followed by `0`) or of U+10FFFF itself (followed by `1`), and
    /// of a negative zero (followed by `-0`, see ``negativeZero``).
    static let escapeMark = "\u{10FFFF}"
    /// -0.0 as the records hold it: a JSON string no text can hold (text's own U+10FFFF is always
    /// followed by `1`), which the SQL of a context reads as 0 (see `PostgresSchema`).
    public static let negativeZero = "\"" + escapeMark + "-0\""
    private static let escapeBytes = Array(escapeMark.utf8)

    /// `text` with NUL and U+10FFFF escaped, for a key kept in a text column.
    public static func escaped(_ text: String) -> String {
        if !text.utf8.contains(where: { $0 == 0 || $0 == escapeBytes[0] }) { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\u{0}": result += escapeMark + "0"
            case "\u{10FFFF}": result += escapeMark + "1"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// The text ``escaped(_:)`` escaped.
    public static func unescaped(_ text: String) -> String {
        if !text.utf8.contains(escapeBytes[0]) { return text }
        var result = ""
        var scalars = text.unicodeScalars.makeIterator()
        while let scalar = scalars.next() {
            guard scalar == "\u{10FFFF}", let marker = scalars.next() else {
                result.unicodeScalars.append(scalar)
                continue
            }
            result.unicodeScalars.append(marker == "0" ? "\u{0}" : "\u{10FFFF}")
        }
        return result
    }

    /// `JSONEncoder` text with every `\u0000` escape and every U+10FFFF escaped as in strings,
    /// and every negative zero outside strings written as ``negativeZero``.
    private static func escapedJSON(_ text: String) -> String {
        if !text.utf8.contains(escapeBytes[0]) && !text.contains("\\u0000") && !text.contains("-0") { return text }
        var result = ""
        var scalars = Array(text.unicodeScalars)[...]
        var inString = false
        while let scalar = scalars.popFirst() {
            if scalar == "\\", let escapedScalar = scalars.first {
                if escapedScalar == "u", scalars.dropFirst().prefix(4).elementsEqual("0000".unicodeScalars) {
                    result += escapeMark + "0"
                    scalars = scalars.dropFirst(5)
                } else {
                    result.unicodeScalars.append(scalar)
                    result.unicodeScalars.append(escapedScalar)
                    scalars = scalars.dropFirst()
                }
            } else if scalar == "\u{10FFFF}" {
                result += escapeMark + "1"
            } else if scalar == "-" && !inString {
                // A number: the rest of its token, and whether it is a zero.
                let token = scalars.prefix { "0123456789.eE+-".unicodeScalars.contains($0) }
                scalars = scalars.dropFirst(token.count)
                if isZero(token) {
                    result += negativeZero
                } else {
                    result.unicodeScalars.append(scalar)
                    result.unicodeScalars.append(contentsOf: token)
                }
            } else {
                if scalar == "\"" { inString.toggle() }
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Whether a JSON number's digits after its sign (`0`, `0.000`, `0e7`) are a zero.
    private static func isZero(_ token: ArraySlice<Unicode.Scalar>) -> Bool {
        let mantissa = token.prefix { $0 != "e" && $0 != "E" }
        return mantissa.first == "0" && mantissa.allSatisfy { $0 == "0" || $0 == "." }
    }

    /// Stored JSON with the escapes of ``escapedJSON(_:)`` and ``appendString(_:to:)`` undone
    /// (`\u0000` for NUL, the number -0.0 for ``negativeZero``), ready for `JSONDecoder`; the
    /// bytes as they are when they hold none.
    private static func unescapedJSON(_ data: Data) -> Data {
        // `memchr`, not `Data.contains`: reading every record scans all its bytes, and `Data`'s
        // byte-by-byte iterator made that scan a fifth of the cost of decoding a small record.
        let escapeLead = escapeBytes[0]
        guard
            data.withUnsafeBytes({ bytes in
                bytes.baseAddress.map { memchr($0, Int32(escapeLead), bytes.count) != nil } ?? false
            })
        else { return data }
        var result = ""
        var scalars = String(decoding: data, as: UTF8.self).unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "\u{10FFFF}", let marker = scalars.popFirst() else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch marker {
            case "0": result += "\\u0000"
            case "-":
                // `"<mark>-0"`: its opening quote is already written, its `0"` still to come.
                if result.unicodeScalars.last == "\"" { result.unicodeScalars.removeLast() }
                scalars = scalars.dropFirst(2)
                result += "-0.0"
            default: result.unicodeScalars.append("\u{10FFFF}")
            }
        }
        return Data(result.utf8)
    }
}
