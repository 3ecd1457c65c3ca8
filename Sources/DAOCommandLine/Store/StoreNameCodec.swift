import Foundation

/// The file store's name encoding (entity names → directory names, keys → file names), written
/// again from its documentation because DAOKit keeps its own codec internal.
///
/// The rules, which must stay byte-for-byte those of `FileStorageContext`:
/// - the name is put in Unicode normalization form C first;
/// - `a`–`z`, `0`–`9`, `-`, `_` stand for themselves, and so does `.` except as the first byte;
/// - `A`–`Z` become `^` and the lower-case letter;
/// - every other UTF-8 byte becomes `%` and two lower-case hex digits;
/// - the empty name is `%`;
/// - when the encoding plus the extension (with its dot) would exceed 255 bytes, the name is `#`
///   and the lower-case hex SHA-256 of the normalized UTF-8 name: such a name cannot be decoded,
///   and the record's key is read from inside the record instead.
///
/// The tests check this codec against the store's by writing records with awkward keys through
/// `FileStorageContext` and finding them where this codec says they are.
enum StoreNameCodec {
    static let maximumNameLength = 255

    /// The encoded stem for `name`, leaving room for `suffixLength` more bytes.
    static func encode(_ name: String, suffixLength: Int = 0) -> String {
        guard !name.isEmpty else { return "%" }
        let normalized = name.precomposedStringWithCanonicalMapping
        var encoded = ""
        encoded.reserveCapacity(normalized.utf8.count)
        for byte in normalized.utf8 {
            switch byte {
            case 0x61...0x7A, 0x30...0x39, 0x2D, 0x5F:  // a-z 0-9 - _
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case 0x2E where !encoded.isEmpty:  // "." not first
                encoded.append(".")
            case 0x41...0x5A:  // A-Z
                encoded.append("^")
                encoded.unicodeScalars.append(Unicode.Scalar(byte + 0x20))
            default:
                encoded.append("%")
                encoded.append(hexDigit(byte >> 4))
                encoded.append(hexDigit(byte & 0x0F))
            }
        }
        if encoded.utf8.count + suffixLength > maximumNameLength {
            return "#" + SHA256Digest.hex(of: Array(normalized.utf8))
        }
        return encoded
    }

    /// The name `stem` encodes; `nil` for a hashed stem or one that ``encode(_:suffixLength:)``
    /// would never produce (so two different files never decode to the same name).
    static func decode(_ stem: String) -> String? {
        if stem == "%" { return "" }
        var bytes: [UInt8] = []
        let utf8 = Array(stem.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            switch byte {
            case 0x5E:  // "^" + a lower-case letter
                guard index + 1 < utf8.count, (0x61...0x7A).contains(utf8[index + 1]) else { return nil }
                bytes.append(utf8[index + 1] - 0x20)
                index += 2
            case 0x25:  // "%" + two hex digits
                guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) else { return nil }
                bytes.append(high << 4 | low)
                index += 3
            default:
                bytes.append(byte)
                index += 1
            }
        }
        guard let name = String(validating: bytes, as: UTF8.self), encode(name) == stem else { return nil }
        return name
    }

    /// Whether `stem` has the shape of a hashed name: `#` and 64 lower-case hex digits.
    static func isHashed(_ stem: String) -> Bool {
        let utf8 = Array(stem.utf8)
        return utf8.count == 65 && utf8[0] == 0x23 && utf8.dropFirst().allSatisfy { hexValue($0) != nil }
    }

    private static func hexDigit(_ value: UInt8) -> Character {
        Character(Unicode.Scalar(value < 10 ? 0x30 + value : 0x61 + value - 10))
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: return digit - 0x30
        case 0x61...0x66: return digit - 0x61 + 10
        default: return nil
        }
    }
}
