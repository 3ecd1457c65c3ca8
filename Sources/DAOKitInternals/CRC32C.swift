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
}
