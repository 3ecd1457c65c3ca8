@testable import DAOKit
import Foundation
import Testing

@Suite("Journal")
struct FileJournalTests {
    static let sample = Journal(directoryName: "^note", entries: [
        .init(fileName: "a.json", previousContents: Data("{\"old\":1}".utf8)),
        .init(fileName: "b.json", previousContents: nil),
        .init(fileName: "%.json", previousContents: Data()),
    ])

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
