import DAOKitStoreFormat
import Foundation
import Testing

@Suite("Journal")
struct JournalTests {
    static let sample = Journal(
        directoryName: "^note",
        entries: [
            .init(fileName: "a.json", previousContents: Data("{\"old\":1}".utf8)),
            .init(fileName: "b.json", previousContents: nil),
            .init(fileName: "%.json", previousContents: Data()),
        ])

    /// Built by hand from the layout documented on ``Journal`` (and in the README), so that the
    /// code cannot drift from the documentation that other tools read journals by.
    @Test func theBytesFollowTheDocumentedLayout() {
        var bytes = Array("DAOKJRN1".utf8)
        func append<I: FixedWidthInteger>(_ value: I) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        func append(_ text: String) {
            append(UInt32(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        }
        append("^note")
        append(UInt32(3))
        append("a.json")
        bytes.append(1)
        append(UInt64(9))
        bytes.append(contentsOf: Array("{\"old\":1}".utf8))
        append("b.json")
        bytes.append(0)
        append("%.json")
        bytes.append(1)
        append(UInt64(0))
        // FNV-1a 64 of everything before it.
        append(bytes.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 })
        #expect(Array(Self.sample.serialized()) == bytes)
    }

    @Test func aCompleteJournalReadsBackAsWritten() {
        #expect(Journal(serialized: Self.sample.serialized()) == Self.sample)
    }

    @Test func aJournalTornAtAnyLengthIsIncomplete() {
        let bytes = Self.sample.serialized()
        for length in 0..<bytes.count {
            #expect(Journal(serialized: bytes.prefix(length)) == nil, "torn at \(length) of \(bytes.count) bytes")
        }
    }

    @Test func aJournalWithAnyByteChangedIsIncomplete() {
        let bytes = Self.sample.serialized()
        for index in 0..<bytes.count {
            var damaged = bytes
            damaged[index] ^= 0x40
            #expect(Journal(serialized: damaged) == nil, "byte \(index) changed")
        }
    }

    @Test func trailingBytesMakeAJournalIncomplete() {
        var bytes = Self.sample.serialized()
        bytes.append(0)
        #expect(Journal(serialized: bytes) == nil)
    }
}

/// A transaction's journal spans several entity directories: version 2 names each entry's, and a
/// journal of one directory is still written as version 1, byte for byte (so that releases that
/// read only version 1 recover every batch).
@Suite("Journal naming several entity directories")
struct JournalOfSeveralDirectoriesTests {
    static let sample = Journal(
        directoryName: "^task",
        entries: [
            .init(fileName: "t.json", previousContents: Data("{}".utf8)),
            .init(fileName: "c.json", previousContents: nil, directoryName: "^comment"),
            .init(fileName: "u.json", previousContents: nil, directoryName: "^task"),
        ])

    @Test func theBytesFollowTheDocumentedLayout() {
        var bytes = Array("DAOKJRN2".utf8)
        func append<I: FixedWidthInteger>(_ value: I) {
            withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
        }
        func append(_ text: String) {
            append(UInt32(text.utf8.count))
            bytes.append(contentsOf: text.utf8)
        }
        append("^task")
        append(UInt32(3))
        append("^task")
        append("t.json")
        bytes.append(1)
        append(UInt64(2))
        bytes.append(contentsOf: Array("{}".utf8))
        append("^comment")
        append("c.json")
        bytes.append(0)
        append("^task")
        append("u.json")
        bytes.append(0)
        append(bytes.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01b3 })
        #expect(Array(Self.sample.serialized()) == bytes)
    }

    @Test func itReadsBackAsWrittenWithEachEntrysDirectory() throws {
        let read = try #require(Journal(serialized: Self.sample.serialized()))
        #expect(read == Self.sample)
        #expect(read.directoryNames == ["^task", "^comment"])
        #expect(read.entries(inDirectory: "^task").map(\.fileName) == ["t.json", "u.json"])
        #expect(read.entries(inDirectory: "^comment").map(\.fileName) == ["c.json"])
    }

    @Test func aJournalOfOneDirectoryIsWrittenAsVersionOne() {
        let single = Journal(
            directoryName: "^note", entries: [.init(fileName: "a.json", previousContents: nil, directoryName: "^note")])
        #expect(single.serialized().starts(with: Array("DAOKJRN1".utf8)))
        #expect(single == Journal(directoryName: "^note", entries: [.init(fileName: "a.json", previousContents: nil)]))
    }

    @Test func aJournalTornAtAnyLengthIsIncomplete() {
        let bytes = Self.sample.serialized()
        for length in 0..<bytes.count {
            #expect(Journal(serialized: bytes.prefix(length)) == nil, "torn at \(length) of \(bytes.count) bytes")
        }
    }

    @Test func anEntrysUnsafeDirectoryNameIsAProblem() {
        let crafted = Journal(
            directoryName: "^task", entries: [.init(fileName: "c.json", previousContents: nil, directoryName: "..")])
        #expect(crafted.nameProblem()?.contains("\"..\"") == true)
        #expect(Self.sample.nameProblem() == nil)
    }
}
