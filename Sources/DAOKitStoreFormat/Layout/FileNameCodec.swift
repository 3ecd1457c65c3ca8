import DAOKitInternals
import Foundation

/// Turns entity names and record keys into file names and back.
///
/// The scheme, chosen so that every name is valid, distinct and reversible on every common file
/// system (including case-insensitive, normalizing ones such as macOS's APFS and HFS+):
/// - the name is first put in Unicode normalization form C, because Swift compares strings by
///   canonical equivalence: `"caf\u{E9}"` and `"cafe\u{301}"` are one id, so they get one file;
/// - `a`–`z`, `0`–`9`, `-` and `_` stand for themselves, and so does `.` except as the first
///   character (so no name is `.`, `..` or hidden, and names starting with `.` stay free for the
///   store's own files);
/// - an upper-case ASCII letter is `^` followed by its lower-case form (`Message` → `^message`), so
///   names never contain upper-case letters and cannot collide when case is ignored;
/// - every other byte of the UTF-8 form (including `/`, NUL, `%`, `^`, a leading `.` and all
///   non-ASCII) is `%` and two lower-case hex digits (`é` → `%c3%a9`), so names are plain ASCII and
///   Unicode normalization cannot merge them;
/// - the empty string is `%` alone;
/// - when the result plus the file extension would exceed 255 bytes, the name is `#` followed by the
///   64 hex digits of the SHA-256 of the UTF-8 form. The record keeps its real key inside.
///
/// Every name has exactly one encoding; ``decode(_:)`` rejects anything else.
///
/// Package-wide so that the `dao` tool names and finds files exactly as the store does.
package enum FileNameCodec {
    /// The longest file name, in bytes, that common file systems accept (`NAME_MAX`).
    package static let maximumNameLength = 255

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// The file-name stem for `name`, leaving room for `suffixLength` more bytes (an extension).
    package static func encode(_ name: String, suffixLength: Int = 0) -> String {
        if name.isEmpty { return "%" }
        // ASCII is already in form C; only other text pays for normalizing.
        let name = name.utf8.allSatisfy { $0 < 0x80 } ? name : name.precomposedStringWithCanonicalMapping
        var out: [UInt8] = []
        out.reserveCapacity(name.utf8.count + 8)
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "_"):
                out.append(byte)
            case UInt8(ascii: "."):
                if out.isEmpty { appendEscaped(byte, to: &out) } else { out.append(byte) }
            case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                out.append(UInt8(ascii: "^"))
                out.append(byte + 32)
            default:
                appendEscaped(byte, to: &out)
            }
        }
        if out.count + suffixLength > maximumNameLength {
            return "#" + SHA256.hexDigest(name)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The name a stem stands for; `nil` for hashed stems and for anything ``encode(_:suffixLength:)``
    /// would not have produced.
    package static func decode(_ stem: String) -> String? {
        if stem == "%" { return "" }
        var bytes: [UInt8] = []
        var iterator = stem.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "^"):
                guard let letter = iterator.next(), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(letter) else {
                    return nil
                }
                bytes.append(letter - 32)
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        guard let name = validatedString(bytes, as: UTF8.self) else { return nil }
        // Canonical form only, so that two different files can never decode to the same name.
        return encode(name) == stem ? name : nil
    }

    /// Whether `stem` has the shape of a hashed name, `#` and 64 lower-case hex digits: the name of
    /// an entity or key too long to spell out, which only the record inside can tell.
    package static func isHashed(_ stem: String) -> Bool {
        let utf8 = stem.utf8
        return utf8.count == 65 && utf8.first == UInt8(ascii: "#")
            && utf8.dropFirst().allSatisfy { hexValue($0) != nil }
    }

    private static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "%"))
        out.append(hexDigits[Int(byte >> 4)])
        out.append(hexDigits[Int(byte & 0xf)])
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
