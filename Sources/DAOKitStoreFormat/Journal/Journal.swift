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
/// A transaction (`FileStorageContext.transaction`) changes records of several entity types at
/// once, under one journal: each of its entries then names its entity directory. Such a journal
/// is written as version 2; a journal of one entity directory (every batch) is still written as
/// version 1, which every release reads, and both are read.
///
/// Layout (integers little-endian), version 1:
/// ```
/// "DAOKJRN1"                            magic and journal version
/// u32 length, bytes                     the entity's directory name
/// u32 count                             the entries:
///   u32 length, bytes                   record file name
///   u8 0 | 1                            0: the file did not exist; 1: it held these bytes:
///   u64 length, bytes
/// u64                                   FNV-1a 64 of everything above
/// ```
/// Version 2 is the same but for its magic, `DAOKJRN2`, and an entity directory name
/// (`u32 length, bytes`) before each entry's record file name; the name after the magic is the
/// first entry's directory.
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
        /// The entity directory of the file when it is not the journal's ``Journal/directoryName``
        /// (an entry of a transaction over several types); `nil` for the journal's own.
        package var directoryName: String?

        /// An entry putting `fileName` back to `previousContents` (`nil`: removing it), in the
        /// entity directory `directoryName` (`nil`: the journal's).
        package init(fileName: String, previousContents: Data?, directoryName: String? = nil) {
            self.fileName = fileName
            self.previousContents = previousContents
            self.directoryName = directoryName
        }
    }

    /// The name of the entity's directory, under the store's directory.
    package var directoryName: String
    /// The files the batch touches, each with what it held before.
    package var entries: [Entry]

    private static let magic = Array("DAOKJRN1".utf8)
    /// The magic of a journal whose entries each name their entity directory.
    private static let magicNamingDirectories = Array("DAOKJRN2".utf8)

    /// Whether an entry lies in another entity directory than the journal's: then it is written
    /// as version 2.
    private var namesSeveralDirectories: Bool { entries.contains { $0.directoryName != nil } }

    /// The entity directories the journal's entries lie in, the journal's own first.
    package var directoryNames: [String] {
        var names = [directoryName]
        for entry in entries {
            if let name = entry.directoryName, !names.contains(name) { names.append(name) }
        }
        return names
    }

    /// The entries whose files lie in the entity directory `name`.
    package func entries(inDirectory name: String) -> [Entry] {
        entries.filter { ($0.directoryName ?? directoryName) == name }
    }

    /// The journal as bytes, checksum included.
    package func serialized() -> Data {
        let severalDirectories = namesSeveralDirectories
        var out = Data()
        out.reserveCapacity(
            64
                + entries.reduce(0) {
                    $0 + $1.fileName.utf8.count + ($1.previousContents?.count ?? 0) + 17
                        + (severalDirectories ? ($1.directoryName ?? directoryName).utf8.count : 0)
                })
        out.append(contentsOf: severalDirectories ? Self.magicNamingDirectories : Self.magic)
        Self.append(string: directoryName, to: &out)
        Self.append(UInt32(entries.count), to: &out)
        for entry in entries {
            if severalDirectories { Self.append(string: entry.directoryName ?? directoryName, to: &out) }
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
        guard bytes.count >= Self.magic.count + 8 else { return nil }
        let severalDirectories: Bool
        if bytes.starts(with: Self.magic) {
            severalDirectories = false
        } else if bytes.starts(with: Self.magicNamingDirectories) {
            severalDirectories = true
        } else {
            return nil
        }
        let body = bytes[..<(bytes.count - 8)]
        var trailer = Reader(bytes: bytes, offset: bytes.count - 8)
        guard let stored = trailer.integer(UInt64.self), stored == Self.checksum(body) else { return nil }

        var reader = Reader(bytes: Array(body), offset: Self.magic.count)
        guard let directoryName = reader.string(), let count = reader.integer(UInt32.self) else { return nil }
        var entries: [Entry] = []
        for _ in 0..<count {
            var entryDirectory: String?
            if severalDirectories {
                guard let name = reader.string() else { return nil }
                entryDirectory = name == directoryName ? nil : name
            }
            guard let fileName = reader.string(), let flag = reader.byte() else { return nil }
            switch flag {
            case 0:
                entries.append(Entry(fileName: fileName, previousContents: nil, directoryName: entryDirectory))
            case 1:
                guard let length = reader.integer(UInt64.self), let contents = reader.bytes(Int(clamping: length))
                else { return nil }
                entries.append(
                    Entry(fileName: fileName, previousContents: Data(contents), directoryName: entryDirectory))
            default:
                return nil
            }
        }
        guard reader.isAtEnd else { return nil }
        self.directoryName = directoryName
        self.entries = entries
    }

    /// A journal of a batch on the entity directory `directoryName`; an entry that names another
    /// directory lies there (a transaction's), one that names this one is stored as naming none.
    package init(directoryName: String, entries: [Entry]) {
        self.directoryName = directoryName
        self.entries = entries.map { entry in
            var entry = entry
            if entry.directoryName == directoryName { entry.directoryName = nil }
            return entry
        }
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
        for name in directoryNames
        where !Self.isSafeComponent(name) || (!FileNameCodec.isHashed(name) && FileNameCodec.decode(name) == nil) {
            return "its entity directory name \(name.debugDescription) is not one the store writes"
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
