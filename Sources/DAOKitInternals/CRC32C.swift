import CDAOKitSupport
import Foundation

/// CRC-32C (Castagnoli), the checksum DAOKit stores with every record so that changed bytes are
/// reported as damage rather than read as another value. Computed in C (`CDAOKitSupport`), with the
/// processor's CRC instructions where it has them.
package enum CRC32C {
    /// The checksum of `bytes`, continuing from `crc` (0 to start).
    @inline(__always)
    package static func checksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        return daokit_crc32c(crc, base, bytes.count)
    }

    /// The checksum of `data`, continuing from `crc` (0 to start).
    @inline(__always)
    package static func checksum(_ data: some ContiguousBytes, continuing crc: UInt32 = 0) -> UInt32 {
        data.withUnsafeBytes { checksum($0, continuing: crc) }
    }

    /// The checksum of a string's UTF-8 bytes, continuing from `crc` (0 to start).
    @inline(__always)
    package static func checksum(utf8 string: String, continuing crc: UInt32 = 0) -> UInt32 {
        var string = string
        return string.withUTF8 { checksum(UnsafeRawBufferPointer($0), continuing: crc) }
    }

    /// The table-only checksum, for tests that compare it with the hardware's.
    package static func portableChecksum(_ bytes: UnsafeRawBufferPointer, continuing crc: UInt32 = 0) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        return daokit_crc32c_portable(crc, base, bytes.count)
    }

    /// Whether ``checksum(_:continuing:)`` runs on the processor's CRC instructions.
    package static var usesHardware: Bool { daokit_crc32c_uses_hardware() != 0 }

    /// Digit `position` (0 to 7, most significant first) of a checksum as the records write it:
    /// eight lowercase hexadecimal digits, so that it has one fixed length in the record's text.
    package static func hexDigit(of checksum: UInt32, at position: Int) -> UInt8 {
        hexAlphabet[Int((checksum >> UInt32(28 - 4 * position)) & 0xF)]
    }

    /// The checksum eight hexadecimal digits give (``hexDigit(of:at:)``), or `nil` when there are
    /// not eight or one is not a lowercase hexadecimal digit (a damaged checksum field).
    package static func parseHexDigits(_ digits: UnsafeRawBufferPointer) -> UInt32? {
        guard digits.count == 8 else { return nil }
        var value: UInt32 = 0
        for byte in digits {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    private static let hexAlphabet = Array("0123456789abcdef".utf8)
}
