import DAOKitInternals
import Foundation
import Testing

/// DAOKit's CRC-32C gives the standard values, the same in hardware and by table, piece by piece
/// as in one go.
@Suite("CRC-32C checksum")
struct CRC32CTests {
    @Test func theStandardCheckValue() {
        #expect(CRC32C.checksum(Data("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum(utf8: "123456789") == 0xE306_9283)
        #expect(Data("123456789".utf8).withUnsafeBytes { CRC32C.portableChecksum($0) } == 0xE306_9283)
        #expect(CRC32C.checksum(Data()) == 0)
        // RFC 3720's vectors: 32 bytes of zeros, of ones.
        #expect(CRC32C.checksum(Data(repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum(Data(repeating: 0xFF, count: 32)) == 0x62A8_AB43)
    }

    @Test func hardwareAndTableAgreeOnEveryLengthAndAlignment() {
        let bytes = (0..<600).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        bytes.withUnsafeBytes { all in
            for start in 0..<8 {
                for length in stride(from: 0, to: all.count - start, by: 7) {
                    let slice = UnsafeRawBufferPointer(rebasing: all[start..<(start + length)])
                    #expect(
                        CRC32C.checksum(slice) == CRC32C.portableChecksum(slice), "start \(start), length \(length)")
                }
            }
        }
    }

    @Test func aChecksumContinuesAcrossPieces() {
        let data = Data((0..<100).map { UInt8($0) })
        for split in [0, 1, 7, 8, 50, 99, 100] {
            let first = CRC32C.checksum(data.prefix(split))
            #expect(
                CRC32C.checksum(data.dropFirst(split), continuing: first) == CRC32C.checksum(data), "split \(split)")
        }
    }

    @Test func everyFlippedBitChangesTheChecksum() {
        var data = Data("{\"entity\":{\"id\":1,\"text\":\"hello\"}}".utf8)
        let original = CRC32C.checksum(data)
        for position in data.indices {
            for bit in 0..<8 {
                data[position] ^= UInt8(1 << bit)
                #expect(CRC32C.checksum(data) != original)
                data[position] ^= UInt8(1 << bit)
            }
        }
    }
}
