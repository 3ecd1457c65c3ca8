import Foundation

/// What the store's undo journal (`<directory>/.journal`) says about the last batch.
///
/// The store writes the old contents of every file a batch touches to the journal before touching
/// any, and commits by truncating it to zero bytes. So an empty (or absent) journal means every
/// batch finished; a complete one means a batch stopped half way and the next open of the store
/// rolls it back; a torn one (its checksum does not match) was cut short before any record was
/// touched, and the next open discards it. The tool only reports: recovering is the store's job.
enum JournalState: Equatable {
    /// No `.journal` file: the store has never run a batch.
    case absent
    /// An empty journal: every batch committed.
    case idle
    /// A complete journal of a batch that did not commit.
    case unfinished(entityDirectory: String, fileNames: [String], size: Int)
    /// A journal that does not parse or whose checksum does not match.
    case torn(size: Int)
    /// The journal could not be read.
    case unreadable(String)

    /// Whether the next open of the store has something to do, so `verify` must report it.
    var needsRecovery: Bool {
        switch self {
        case .absent, .idle: return false
        case .unfinished, .torn, .unreadable: return true
        }
    }

    /// Reads the journal at `path`.
    static func read(at path: String) -> JournalState {
        do {
            switch try ReadOnlyFiles.kind(of: path) {
            case .missing: return .absent
            case .directory, .other: return .unreadable("it is not a regular file")
            case .file(size: 0): return .idle
            case .file: break
            }
            return parse(try ReadOnlyFiles.contents(of: path))
        } catch {
            return .unreadable(error.message)
        }
    }

    /// Parses the documented layout (integers little-endian):
    /// `"DAOKJRN1"`, u32 length + the entity directory's name, u32 entry count, per entry u32
    /// length + file name, u8 0 (the file did not exist) or 1 + u64 length + the old contents,
    /// and last a u64 FNV-1a 64 checksum of everything before it.
    static func parse(_ data: Data) -> JournalState {
        let bytes = [UInt8](data)
        if bytes.isEmpty { return .idle }
        let magic = Array("DAOKJRN1".utf8)
        guard bytes.count >= magic.count + 8, bytes.starts(with: magic) else { return .torn(size: bytes.count) }
        let bodyEnd = bytes.count - 8
        var checksumReader = LittleEndianReader(bytes: bytes, offset: bodyEnd)
        guard checksumReader.integer(UInt64.self) == fnv1a64(bytes[..<bodyEnd]) else { return .torn(size: bytes.count) }

        var reader = LittleEndianReader(bytes: Array(bytes[..<bodyEnd]), offset: magic.count)
        guard let directory = reader.string(), let count = reader.integer(UInt32.self) else { return .torn(size: bytes.count) }
        var fileNames: [String] = []
        for _ in 0..<count {
            guard let name = reader.string(), let flag = reader.byte() else { return .torn(size: bytes.count) }
            if flag == 1 {
                guard let length = reader.integer(UInt64.self), reader.skip(length) else { return .torn(size: bytes.count) }
            } else if flag != 0 {
                return .torn(size: bytes.count)
            }
            fileNames.append(name)
        }
        guard reader.isAtEnd else { return .torn(size: bytes.count) }
        return .unfinished(entityDirectory: directory, fileNames: fileNames, size: bytes.count)
    }

    /// FNV-1a, 64 bits: the journal's checksum, which tells a torn journal from a whole one.
    static func fnv1a64<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        bytes.reduce(0xcbf2_9ce4_8422_2325) { hash, byte in (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
    }
}

/// Reads little-endian integers and length-prefixed strings, returning `nil` past the end.
private struct LittleEndianReader {
    let bytes: [UInt8]
    var offset: Int

    var isAtEnd: Bool { offset == bytes.count }

    mutating func byte() -> UInt8? {
        guard offset < bytes.count else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func integer<Integer: FixedWidthInteger>(_ type: Integer.Type) -> Integer? {
        let size = MemoryLayout<Integer>.size
        guard bytes.count - offset >= size else { return nil }
        var value: Integer = 0
        for index in 0..<size { value |= Integer(bytes[offset + index]) << (8 * index) }
        offset += size
        return value
    }

    mutating func skip(_ count: UInt64) -> Bool {
        guard count <= UInt64(bytes.count - offset) else { return false }
        offset += Int(count)
        return true
    }

    mutating func string() -> String? {
        guard let length = integer(UInt32.self), UInt64(length) <= UInt64(bytes.count - offset) else { return nil }
        defer { offset += Int(length) }
        return String(validating: bytes[offset..<(offset + Int(length))], as: UTF8.self)
    }
}
