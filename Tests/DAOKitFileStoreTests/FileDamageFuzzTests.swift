import DAOKit
import DAOKitFileStore
import DAOKitTestSupport
import Foundation
import Testing

/// A bounded, seeded damage fuzzer for the file store: bytes of record files, `.changes` and
/// `.lock` are flipped, truncated or overwritten with bytes spliced from another record, and the
/// store is read back by a fresh context. Every record must read back exactly or be reported
/// unreadable by its key: never a wrong value, never silently missing.
@Suite("File damage fuzzer")
struct FileDamageFuzzTests {
    static let notes = (0..<16).map {
        FileNote(id: "note-\($0)", text: "text \($0) " + String(repeating: "x", count: $0 * 7), number: $0 * 1_001)
    }
    /// 2,000 in release builds (`.ci/run`'s `swift test -c release`), fewer in debug builds, where
    /// every read is slower and the suite runs again under AddressSanitizer.
    #if DEBUG
        static let mutations = 300
    #else
        static let mutations = 2_000
    #endif

    /// SplitMix64: the same mutations on every run.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test func everyRecordReadsBackExactlyOrIsReportedByName() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save(Self.notes)
            let files = Self.notes.map { context.fileURL(for: FileNote.self, id: $0.id) }
            let others = [".changes", ".lock"].map { directory.url.appendingPathComponent($0) }
            let originals = try (files + others).map { try Data(contentsOf: $0) }
            var random = Generator(state: 0x5EED_DA0C)
            var (wrong, missing, reported, exact) = (0, 0, 0, 0)
            for _ in 0..<Self.mutations {
                let target = Int.random(in: 0..<(files.count + others.count), using: &random)
                let url = target < files.count ? files[target] : others[target - files.count]
                var bytes = originals[target]
                switch Int.random(in: 0..<3, using: &random) {
                case 0 where !bytes.isEmpty:
                    let position = Int.random(in: 0..<bytes.count, using: &random)
                    bytes[position] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
                case 1:
                    bytes = bytes.prefix(Int.random(in: 0...bytes.count, using: &random))
                default:
                    let source = originals[Int.random(in: 0..<files.count, using: &random)]
                    let length = Int.random(in: 1...max(1, min(source.count, 40)), using: &random)
                    let from = Int.random(in: 0...(source.count - length), using: &random)
                    let to = Int.random(in: 0...max(0, bytes.count - length), using: &random)
                    bytes.replaceSubrange(to..<min(bytes.count, to + length), with: source[from..<(from + length)])
                }
                try bytes.write(to: url)
                let reader = try FileStorageContext(directory: directory.url)
                let readable = try reader.fetchReadable(FileNote.self)
                let failed = Set(readable.failures.compactMap(\.storageKey))
                for note in Self.notes {
                    if let value = readable.values.first(where: { $0.id == note.id }) {
                        if value == note { exact += 1 } else { wrong += 1 }
                    } else if failed.contains(note.id) {
                        reported += 1
                    } else {
                        missing += 1
                    }
                }
                if target < files.count {
                    let note = Self.notes[target]
                    do {
                        if try reader.fetch(FileNote.self, id: note.id) != note { wrong += 1 }
                    } catch is StorageError {
                        reported += 1
                    }
                }
                try originals[target].write(to: url)
            }
            // The counts, for the record of a run (the closing note of issue 28 quotes them).
            print(
                "file damage fuzzer: \(Self.mutations) mutations, \(exact) records read exactly, \(reported) reported, "
                    + "\(wrong) wrong, \(missing) silently missing")
            #expect(wrong == 0, "wrong values: \(wrong)")
            #expect(missing == 0, "silently missing: \(missing)")
            #expect(reported > Self.mutations / 2, "reported: \(reported), exact: \(exact)")
            #expect(try FileStorageContext(directory: directory.url).notes() == Self.notes.sorted { $0.id < $1.id })
        }
    }
}
