import DAOKitInternals
import Foundation

/// What every record file holds around its entity, and how a record that is not one this release
/// reads is described — the same words from the library's `fetch` and from `dao verify`.
///
/// A record is an envelope with three fields: `formatVersion`, `key` (the real storage key, which
/// a hashed file name cannot give back) and `entity`. The library decodes it with `Codable`
/// (`RecordCodec`); the tool, which has no Swift types for entities, parses it (`RecordReader`).
///
/// Version 2 (JSON records) begins with a fourth field, the CRC-32C of every byte after it, as 8
/// hexadecimal digits: `{"checksum":"1a2b3c4d","entity":…,"formatVersion":2,"key":"…"}`. Placed
/// first and of a fixed length, it is checked on the bytes before any parsing, so a record whose
/// bytes changed is reported as damaged instead of read as another value.
///
/// Version 2 property-list records (binary, `bplist00`) keep their checksum in the file's 32-byte
/// trailer, in 5 of the 6 bytes the format leaves unused (`plutil` and every property-list reader
/// ignore them): the byte `D`, then the CRC-32C (big-endian) of every other byte of the file —
/// everything before the trailer, then the trailer after those 5 bytes. Checked on the bytes before
/// parsing, like the JSON seal. Version 1 records (no checksum; written by earlier releases) stay
/// readable in both formats.
package enum RecordEnvelope {
    /// The envelope's `formatVersion` this release writes: with a checksum.
    package static let formatVersion = 2
    /// The version without a checksum: earlier releases' records.
    package static let uncheckedFormatVersion = 1
    /// The versions this release reads.
    package static let readableVersions = [uncheckedFormatVersion, formatVersion]

    /// The problem with a record of another format version.
    package static func unsupportedVersion(_ version: some BinaryInteger) -> String {
        "format version \(version) is not supported; this release reads versions 1 and 2"
    }

    /// The problem with a record whose file is not the one its key names: `fetch(id:)` looks only
    /// where the key says, so such a record is invisible there and counts as damage.
    package static func misplacedKey(_ key: String) -> String {
        "the file name does not match the key inside, \(key.debugDescription)"
    }

    /// The problem with a record whose version does not say what its checksum says (a version 2
    /// record must begin with its checksum, and only version 2 has one).
    package static func checksumAndVersionDisagree(sealed: Bool, version: some BinaryInteger) -> String {
        sealed
            ? "the record has a checksum but format version \(version)"
            : "format version \(version) records begin with their checksum, and this one does not"
    }

    /// The problem with a record whose bytes no longer match its checksum.
    package static let checksumMismatch =
        "the record's checksum does not match its bytes: the file changed after it was written"

    private static let sealPrefix = Array(#"{"checksum":""#.utf8)
    private static let sealSuffix = Array(#"","#.utf8)
    /// `{"checksum":"` + 8 hex digits + `",`.
    package static let sealLength = sealPrefix.count + 8 + sealSuffix.count

    /// A JSON envelope `{"entity":…}` sealed with its checksum: `{"checksum":"…",` then the
    /// envelope without its opening brace, which is what the checksum covers.
    ///
    /// Written into one buffer of the final size in one pass: appending the seal's bytes to a
    /// `Data` one at a time cost many times the checksum itself, on every record written.
    package static func sealed(_ envelope: Data) -> Data {
        let body = envelope.dropFirst()
        let checksum = CRC32C.checksum(body)
        var out = Data(count: sealLength + body.count)
        out.withUnsafeMutableBytes { buffer in
            // Indices, not a helper closing over a running position: a captured variable would be
            // checked for exclusive access at run time on every byte.
            sealPrefix.withUnsafeBytes { buffer.copyMemory(from: $0) }
            for digit in 0..<8 { buffer[sealPrefix.count + digit] = CRC32C.hexDigit(of: checksum, at: digit) }
            sealSuffix.withUnsafeBytes {
                UnsafeMutableRawBufferPointer(rebasing: buffer[(sealPrefix.count + 8)...]).copyMemory(from: $0)
            }
            body.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: buffer[sealLength...]).copyMemory(from: $0) }
        }
        return out
    }

    /// What the bytes of a JSON record say about their seal.
    package enum Seal: Equatable {
        /// No checksum: the record must be version 1.
        case none
        /// The checksum matches: the envelope without it is `{` followed by the bytes from
        /// `bodyStart` on, and the record must be version 2.
        case intact(bodyStart: Int)
        /// The record begins with a checksum that does not match its bytes (or is not 8 hex
        /// digits). `bodyStart` is where the body would start when the seal is well formed, so
        /// that readers can say what else is wrong with the record before blaming the checksum.
        case broken(bodyStart: Int?)
    }

    /// Checks the seal of a JSON record's bytes (see ``Seal``).
    package static func seal(of data: Data) -> Seal {
        data.withUnsafeBytes { bytes -> Seal in
            guard bytes.count >= sealPrefix.count, bytes.starts(with: sealPrefix) else { return .none }
            guard bytes.count >= sealLength,
                bytes[(sealPrefix.count + 8)..<sealLength].elementsEqual(sealSuffix)
            else { return .broken(bodyStart: nil) }
            guard
                let stored = CRC32C.parseHexDigits(
                    UnsafeRawBufferPointer(rebasing: bytes[sealPrefix.count..<(sealPrefix.count + 8)]))
            else {
                return .broken(bodyStart: nil)
            }
            let body = UnsafeRawBufferPointer(rebasing: bytes[sealLength...])
            return CRC32C.checksum(body) == stored ? .intact(bodyStart: sealLength) : .broken(bodyStart: sealLength)
        }
    }

    /// Where the body of a JSON record that begins with a well-formed seal starts (its checksum
    /// not checked), `nil` when it does not begin with one. The seal is JSON itself — a first
    /// member of the envelope — so code that only needs a field of the envelope, and trusts the
    /// bytes, can read the record as it is instead of unsealing a copy of it.
    package static func sealedBodyStart(of data: Data) -> Int? {
        data.withUnsafeBytes { bytes -> Int? in
            guard bytes.count >= sealLength, bytes.starts(with: sealPrefix),
                bytes[(sealPrefix.count + 8)..<sealLength].elementsEqual(sealSuffix)
            else { return nil }
            return sealLength
        }
    }

    /// The envelope of an intact sealed record without its checksum: `{` and the body.
    package static func unsealed(_ data: Data, bodyStart: Int) -> Data {
        var out = Data(capacity: data.count - bodyStart + 1)
        out.append(UInt8(ascii: "{"))
        out.append(data[(data.startIndex + bodyStart)...])
        return out
    }

    // MARK: Property lists

    /// The size of a binary property list's trailer, and the bytes of it that hold the seal.
    private static let trailerLength = 32
    private static let plistSealLength = 5
    private static let plistSealMarker = UInt8(ascii: "D")

    /// The CRC-32C of a binary property list's bytes but its seal's.
    private static func propertyListChecksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        let trailer = bytes.count - trailerLength
        let head = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[..<trailer]))
        return CRC32C.checksum(
            UnsafeRawBufferPointer(rebasing: bytes[(trailer + plistSealLength)...]), continuing: head)
    }

    /// A binary property list (`PropertyListEncoder`'s output, whose trailer's first bytes are
    /// unused and zero) sealed with its checksum.
    package static func sealedPropertyList(_ plist: Data) -> Data {
        var out = plist
        guard out.count >= 8 + trailerLength else { return out }  // never: an encoder's output is longer
        let crc = out.withUnsafeBytes { propertyListChecksum($0) }
        let trailer = out.startIndex + out.count - trailerLength
        out[trailer] = plistSealMarker
        for position in 0..<4 {
            out[trailer + 1 + position] = UInt8(truncatingIfNeeded: crc >> UInt32(24 - 8 * position))
        }
        return out
    }

    /// Checks the seal of a binary property list's bytes: `.intact(bodyStart: 0)` when it has a
    /// matching one (the bytes parse as they are), `.none` when the seal's bytes are all zero
    /// (a version 1 record, or not a binary property list at all), `.broken(bodyStart: 0)` when
    /// they hold anything else or a checksum that does not match.
    package static func propertyListSeal(of data: Data) -> Seal {
        data.withUnsafeBytes { bytes -> Seal in
            guard bytes.count >= 8 + trailerLength else { return .none }
            let trailer = bytes.count - trailerLength
            let seal = bytes[trailer..<(trailer + plistSealLength)]
            if seal.allSatisfy({ $0 == 0 }) { return .none }
            guard seal.first == plistSealMarker else { return .broken(bodyStart: 0) }
            var stored: UInt32 = 0
            for byte in seal.dropFirst() { stored = stored << 8 | UInt32(byte) }
            return propertyListChecksum(bytes) == stored ? .intact(bodyStart: 0) : .broken(bodyStart: 0)
        }
    }
}
