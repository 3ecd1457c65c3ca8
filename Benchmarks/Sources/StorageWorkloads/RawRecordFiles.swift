import BenchmarkModels
import Foundation

/// Messages kept one JSON file per record by hand, in the same folder and the same format as
/// `FileStorageContext` keeps them: the raw baseline of the file benchmarks.
///
/// It does the I/O the context must do and nothing more — no lock, no journal, no check of what a
/// file held before, no mapping — so `dao/raw` is what the context and `BaseDao` add on top.
struct RawRecordFiles {
    /// The entity's folder inside the store directory.
    let directory: String
    /// Configured as the context's record encoder (sorted keys, unescaped slashes), so that both
    /// write the same bytes.
    let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
    let decoder = JSONDecoder()

    /// The record file of `id`. Integer ids need no escaping, so a hand-written store would name
    /// its files this way too (checked against the context's name before timing).
    func path(for id: Int) -> String {
        directory + "/" + String(id) + ".json"
    }

    /// The file contents for `message`: the envelope, sealed as format version 2 is, with the
    /// CRC-32C of its bytes after the opening brace in front (by table, as an app without DAOKit
    /// would compute it).
    func encode(_ message: Message) throws -> Data {
        let envelope = try encoder.encode(RawRecord(formatVersion: 2, key: String(message.id), entity: message))
        let body = envelope.dropFirst()
        let hex = String(RawCRC32C.checksum(body), radix: 16)
        var out = Data(#"{"checksum":""#.utf8)
        out.append(contentsOf: [UInt8](repeating: UInt8(ascii: "0"), count: 8 - hex.utf8.count))
        out.append(contentsOf: Array(hex.utf8))
        out.append(contentsOf: Array(#"","#.utf8))
        out.append(body)
        return out
    }

    /// Writes one record as the context does: temporary file, `fsync`, `rename`, `fsync` of the folder.
    func write(_ message: Message) throws {
        let temporaryPath = directory + "/.tmp-raw-" + String(UInt64.random(in: .min ... .max), radix: 16)
        try RawFileIO.replaceDurably(
            path(for: message.id), with: encode(message), temporaryPath: temporaryPath,
            directory: directory)
    }

    /// Writes several records in place and flushes them with one call: the I/O of the context's
    /// batch without its journal, so neither atomic nor crash-safe.
    func write(_ messages: [Message]) throws {
        for message in messages {
            try RawFileIO.overwrite(path(for: message.id), with: encode(message))
        }
        try RawFileIO.flushFileSystem(containing: directory)
    }

    func read(id: Int) throws -> Message {
        try decoder.decode(RawRecord.self, from: RawFileIO.contents(of: path(for: id))).entity
    }

    /// Every record in the folder, in directory order.
    func readAll() throws -> [Message] {
        try RawFileIO.fileNames(in: directory)
            .filter { !$0.hasPrefix(".") && $0.hasSuffix(".json") }
            .map { try decoder.decode(RawRecord.self, from: RawFileIO.contents(of: directory + "/" + $0)).entity }
    }
}

/// CRC-32C (Castagnoli) by table, one byte at a time: the checksum of a version 2 record.
enum RawCRC32C {
    private static let table: [UInt32] = (0..<256).map { (byte: UInt32) -> UInt32 in
        var crc = byte
        for _ in 0..<8 { crc = (crc >> 1) ^ (0x82F6_3B78 & (0 &- (crc & 1))) }
        return crc
    }

    static func checksum(_ bytes: Data) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return ~crc
    }
}
