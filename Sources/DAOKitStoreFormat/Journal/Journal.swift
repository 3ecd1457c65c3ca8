import DAOKitInternals
import Foundation

/// The undo journal of a batch: what every file it touches held before it.
///
/// A batch (`save` of several entities, `delete` of several ids) rewrites record files in place,
/// which is fast, but leaves no old copy behind. So before touching any record it writes this
/// journal to `<directory>/.journal` and `fsync`s it; the batch commits by truncating the journal to
/// zero bytes. A complete journal found later (on open, or by any reader or writer that takes the
/// lock) therefore means "a batch stopped half way": every entry is put back — old contents
/// rewritten, files that did not exist removed — which is idempotent, so a crash during recovery is
/// harmless. An incomplete journal (torn by a crash while it was being written; the checksum tells)
/// means no record was touched yet, so it is simply discarded.
///
/// Layout (integers little-endian):
/// ```
/// "DAOKJRN1"                            magic and journal version
/// u32 length, bytes                     the entity's directory name
/// u32 count                             the entries:
///   u32 length, bytes                   record file name
///   u8 0 | 1                            0: the file did not exist; 1: it held these bytes:
///   u64 length, bytes
/// u64                                   FNV-1a 64 of everything above
/// ```
///
/// Package-wide so that the `dao` tool can report an unfinished batch without opening the store
/// (which would roll it back).
package struct Journal: Equatable, Sendable {
    /// One file the batch touches.
    package struct Entry: Equatable, Sendable {
        /// The record's file name inside the entity's directory.
        package var fileName: String
        /// The file's contents before the batch; `nil` when it did not exist.
        package var previousContents: Data?

        /// An entry putting `fileName` back to `previousContents` (`nil`: removing it).
        package init(fileName: String, previousContents: Data?) {
            self.fileName = fileName
            self.previousContents = previousContents
        }
    }

    /// The name of the entity's directory, under the store's directory.
    package var directoryName: String
    /// The files the batch touches, each with what it held before.
    package var entries: [Entry]

    private static let magic = Array("DAOKJRN1".utf8)

    /// The journal as bytes, checksum included.
    package func serialized() -> Data {
        var out = Data()
        out.reserveCapacity(
            64 + entries.reduce(0) { $0 + $1.fileName.utf8.count + ($1.previousContents?.count ?? 0) + 13 })
        out.append(contentsOf: Self.magic)
        Self.append(string: directoryName, to: &out)
        Self.append(UInt32(entries.count), to: &out)
        for entry in entries {
            Self.append(string: entry.fileName, to: &out)
            if let contents = entry.previousContents {
                out.append(1)
                Self.append(UInt64(contents.count), to: &out)
                out.append(contents)
            } else {
                out.append(0)
            }
        }
        // Over the buffer, not `Data`'s iterator, which costs tens of instructions a byte: the
        // journal holds every record a batch replaces, so this runs over all of their bytes.
        Self.append(out.withUnsafeBytes { Self.checksum($0) }, to: &out)
        return out
    }

    /// Parses a journal; `nil` unless it is complete and its checksum matches, which is how a
    /// journal torn by a crash (its batch touched no record yet) is told from a whole one.
    package init?(serialized data: Data) {
        let bytes = [UInt8](data)
        guard bytes.count >= Self.magic.count + 8, bytes.starts(with: Self.magic) else { return nil }
        let body = bytes[..<(bytes.count - 8)]
        var trailer = Reader(bytes: bytes, offset: bytes.count - 8)
        guard let stored = trailer.integer(UInt64.self), stored == Self.checksum(body) else { return nil }

        var reader = Reader(bytes: Array(body), offset: Self.magic.count)
        guard let directoryName = reader.string(), let count = reader.integer(UInt32.self) else { return nil }
        var entries: [Entry] = []
        for _ in 0..<count {
            guard let fileName = reader.string(), let flag = reader.byte() else { return nil }
            switch flag {
            case 0:
                entries.append(Entry(fileName: fileName, previousContents: nil))
            case 1:
                guard let length = reader.integer(UInt64.self), let contents = reader.bytes(Int(clamping: length))
                else { return nil }
                entries.append(Entry(fileName: fileName, previousContents: Data(contents)))
            default:
                return nil
            }
        }
        guard reader.isAtEnd else { return nil }
        self.directoryName = directoryName
        self.entries = entries
    }

    /// A journal of a batch on the entity directory `directoryName`.
    package init(directoryName: String, entries: [Entry]) {
        self.directoryName = directoryName
        self.entries = entries
    }

    /// Why this journal cannot have been written by a `FileStorageContext`, or `nil` when every
    /// name in it is one the store could have given: the directory name an encoded entity name
    /// (``FileNameCodec``, or its hash), and every file name an encoded key with one of
    /// `fileExtensions`.
    ///
    /// Safety: rolling a journal back creates, rewrites and removes `<store>/<directory>/<file>`,
    /// so a name such as `..`, `../x` or `a/b` would let a journal — found in the store, with a
    /// valid checksum, but crafted or corrupted — make merely opening the store change files
    /// outside it. Encoded names are single path components that never contain `/` or NUL and
    /// never start with `.` (so they are never `.` or `..`, nor the store's own files); the
    /// explicit checks below restate that, so the guarantee does not rest on the codec alone. A
    /// journal that fails this must not be rolled back, nor discarded as torn: it is reported.
    /// - Parameter fileExtensions: the record file extensions to accept (without the dot).
    package func nameProblem(fileExtensions: [String] = Self.recordFileExtensions) -> String? {
        guard Self.isSafeComponent(directoryName),
            FileNameCodec.isHashed(directoryName) || FileNameCodec.decode(directoryName) != nil
        else {
            return "its entity directory name \(directoryName.debugDescription) is not one the store writes"
        }
        for entry in entries where !Self.isRecordFileName(entry.fileName, fileExtensions: fileExtensions) {
            return "its record file name \(entry.fileName.debugDescription) is not one the store writes"
        }
        return nil
    }

    /// The extensions of every record format.
    package static let recordFileExtensions = FileStoreLayout.recordFileExtensions

    /// A single, visible path component: not empty, no `/` or NUL, not starting with `.`.
    private static func isSafeComponent(_ name: String) -> Bool {
        !name.isEmpty && !name.utf8.contains(UInt8(ascii: "/")) && !name.utf8.contains(0)
            && name.utf8.first != UInt8(ascii: ".")
    }

    /// Whether `name` is `<encoded key or hash>.<extension>`, as `FileStorageContext.RecordFormat.fileName(forKey:)` gives.
    private static func isRecordFileName(_ name: String, fileExtensions: [String]) -> Bool {
        guard isSafeComponent(name) else { return false }
        return fileExtensions.contains { fileExtension in
            guard name.hasSuffix("." + fileExtension) else { return false }
            let stem = String(name.dropLast(fileExtension.utf8.count + 1))
            return FileNameCodec.isHashed(stem) || FileNameCodec.decode(stem) != nil
        }
    }

    /// FNV-1a 64: not cryptographic, only there to tell a journal torn by a crash from a whole one.
    package static func checksum<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    private static func append<I: FixedWidthInteger>(_ value: I, to out: inout Data) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private static func append(string: String, to out: inout Data) {
        append(UInt32(string.utf8.count), to: &out)
        out.append(contentsOf: Array(string.utf8))
    }

    private struct Reader {
        let bytes: [UInt8]
        var offset: Int

        var isAtEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return bytes[offset..<(offset + count)]
        }

        mutating func integer<I: FixedWidthInteger>(_ type: I.Type) -> I? {
            guard let raw = bytes(MemoryLayout<I>.size) else { return nil }
            var value: I = 0
            for (index, byte) in raw.enumerated() { value |= I(byte) << (8 * index) }
            return value
        }

        mutating func string() -> String? {
            guard let length = integer(UInt32.self), let raw = bytes(Int(length)) else { return nil }
            return validatedString(raw, as: UTF8.self)
        }
    }
}
