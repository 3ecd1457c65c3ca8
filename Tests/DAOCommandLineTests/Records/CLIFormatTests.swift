import DAOKit
import DAOKitFileStore
import DAOKitStoreFormat
import Foundation
import Testing

@testable import DAOCommandLine

/// The tool names files and reads journals with DAOKit's own code (`FileNameCodec`, `Journal`),
/// but reads record envelopes with its own parsers, which keep numbers as written; these tests
/// hold those parsers to the specifications and to what the store writes.
@Suite("CLI file formats")
struct CLIFormatTests {
    static let awkwardKeys = [
        "plain", "UPPER", "MiXeD-case_1.2", ".hidden", "..", ".", "a/b", "../escape", "", "%", "^", "#", "100%",
        "caf\u{E9}", "cafe\u{301}", "emoji 🙂", "nul\u{0}byte", "tab\tnew\nline", "ß",
        String(repeating: "k", count: 250),
        String(repeating: "k", count: 251), String(repeating: "é", count: 200),
    ]

    @Test(
        "a store of awkward keys, hashed names included, verifies clean and dumps by real key",
        arguments: [FileStorageContext.RecordFormat.json, .propertyList])
    func aStoreOfAwkwardKeysVerifiesClean(_ format: FileStorageContext.RecordFormat) throws {
        try CLIStore.with { store in
            let context = try store.context(format)
            try context.save(Self.awkwardKeys.map { CLINote(id: $0, text: "") })
            #expect(dao("verify", store.path).status == 0)
            let dump = dao("dump", store.path, CLINote.entityName)
            #expect(dump.status == 0, "\(dump.errors)")
            let keys = Set(try foundationJSON(dump.output).keys)
            #expect(keys == Set(Self.awkwardKeys.map(\.precomposedStringWithCanonicalMapping)))
        }
    }

    @Test func jsonTruncationIsReportedWithTheOffsetWhereTheDataEnds() {
        let text = #"{"entity":{"text":"hel"#
        #expect(throws: JSONSyntaxError(offset: text.utf8.count, reason: "unexpected end of data", isTruncation: true))
        {
            try JSONParser.parse(Array(text.utf8))
        }
    }

    @Test(
        "what RFC 8259 rejects is rejected",
        arguments: [
            "01", "1.", ".5", "-", "1e", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "tru", "\"\\x\"", "\"\u{01}\"", "[1] 2",
            "NaN",
            "'single'", "{a:1}", "\"\\ud800\"", "\"\\udc00\"",
        ])
    func jsonParserRejectsInvalidDocuments(_ text: String) {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(text.utf8)) }
    }

    @Test func jsonParserRejectsInvalidUTF8InsideStrings() {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test func jsonParserDecodesEscapesAndSurrogatePairs() throws {
        let value = try JSONParser.parse(
            Array(#" {"s": "a\"\\\/\b\f\n\r\t\u00e9\ud83d\ude42", "n": -0.5e+3, "l": [true, false, null]} "#.utf8))
        #expect(
            value
                == .object([
                    JSONMember(name: "s", value: .string("a\"\\/\u{8}\u{C}\n\r\té🙂")),
                    JSONMember(name: "n", value: .number("-0.5e+3")),
                    JSONMember(name: "l", value: .array([.bool(true), .bool(false), .null])),
                ]))
    }

    @Test func jsonParserLimitsNestingInsteadOfExhaustingTheStack() {
        let deep = Array(repeating: UInt8(ascii: "["), count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
        let allowed = Array(repeating: UInt8(ascii: "["), count: 512) + Array(repeating: UInt8(ascii: "]"), count: 512)
        #expect(throws: Never.self) { try JSONParser.parse(allowed) }
    }

    @Test func jsonWriterOutputParsesBackToTheSameValue() throws {
        let value = JSONValue.object([
            JSONMember(name: "control \u{1}", value: .string("line\nbreak \"quoted\" \u{1F} 🙂")),
            JSONMember(name: "empty", value: .object([])),
            JSONMember(name: "list", value: .array([.number("1"), .array([]), .null])),
        ])
        #expect(try JSONParser.parse(Array(JSONWriter.pretty(value).utf8)) == value)
    }

    @Test func binaryPropertyListParserReadsWhatPropertyListEncoderWrites() throws {
        struct Sample: Codable {
            var flag = true, zero = false, small: UInt8 = 200, negative: Int64 = -5, huge = UInt64.max
            var real = 0.1, float: Float = 1.5, nan = Double.nan, date = Date(timeIntervalSinceReferenceDate: 2.5)
            var data = Data([0xDE, 0xAD]), ascii = "plain", unicode = "caf\u{E9} 🙂", list = [1, 2],
                nested = ["k": ["v"]]
            var long = String(repeating: "x", count: 40)
        }
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let value = try BinaryPropertyListParser.parse(try encoder.encode(Sample()))
        let expected: [String: DAOCommandLine.JSONValue] = [
            "flag": .bool(true), "zero": .bool(false), "small": .number("200"), "negative": .number("-5"),
            "huge": .number("18446744073709551615"), "real": .number("0.1"), "float": .number("1.5"),
            "nan": .string("NaN"),
            "date": .number("2.5"), "data": .string("3q0="), "ascii": .string("plain"),
            "unicode": .string("caf\u{E9} 🙂"),
            "list": .array([.number("1"), .number("2")]),
            "nested": .object([JSONMember(name: "k", value: .array([.string("v")]))]),
            "long": .string(String(repeating: "x", count: 40)),
        ]
        for (name, expectedValue) in expected {
            #expect(value[member: name] == expectedValue, "\(name)")
        }
    }

    @Test func damagedPropertyListsAreErrorsNeverCrashes() throws {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        let data = try encoder.encode(["formatVersion": "1", "key": "k", "entity": String(repeating: "e", count: 20)])
        var errors = 0
        for length in 0..<data.count {
            if (try? BinaryPropertyListParser.parse(data.prefix(length))) == nil { errors += 1 }
        }
        #expect(errors == data.count)
        // Every single-byte change either still parses or is an error; none may trap.
        for index in data.indices {
            for replacement: UInt8 in [0x00, 0x0F, 0x7F, 0xFF] {
                var damaged = data
                damaged[index] = replacement
                _ = try? BinaryPropertyListParser.parse(damaged)
            }
        }
    }

    /// Sixty arrays, each holding the next one twice: a few hundred bytes that describe 2^60 values.
    ///
    /// The parse takes a millisecond; the limit only tells a hang (2^60 visits) from an answer. It
    /// is generous because it also counts the time the test waits for a thread while the run's
    /// other tests block theirs: under AddressSanitizer on two cores that wait reached 90 seconds
    /// and failed a one-minute limit.
    @Test(.timeLimit(.minutes(5)))
    func aPropertyListThatSharesContainersExponentiallyIsAnErrorNotAHang() throws {
        let levels = 60
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for level in 0..<levels {
            offsets.append(UInt8(bytes.count))
            if level == levels - 1 {
                bytes.append(0x09)  // true
            } else {
                bytes += [0xA2, UInt8(level + 1), UInt8(level + 1)]  // an array of two references
            }
        }
        let tableOffset = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]  // unused, offset size 1, reference size 1
        func bigEndian(_ value: Int) -> [UInt8] {
            (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        bytes += bigEndian(levels) + bigEndian(0) + bigEndian(tableOffset)
        let error = try #require(throws: PropertyListSyntaxError.self) {
            try BinaryPropertyListParser.parse(Data(bytes))
        }
        #expect(error.reason.contains("shared so often"))
    }

    @Test func journalsAreToldApartByTheirChecksum() throws {
        try CLIStore.with { store in
            try FileManager.default.createDirectory(at: store.url, withIntermediateDirectories: true)
            try store.writeUnfinishedJournal(
                entityDirectory: "^note", entries: [("a.json", Data("old".utf8)), ("b.json", nil)])
            let data = try Data(contentsOf: store.url.appendingPathComponent(".journal"))
            #expect(
                JournalState.parse(data)
                    == .unfinished(entityDirectory: "^note", fileNames: ["a.json", "b.json"], size: data.count))
            #expect(JournalState.parse(data.dropLast()) == .torn(size: data.count - 1))
            var flipped = data
            flipped[12] ^= 1
            #expect(JournalState.parse(flipped) == .torn(size: data.count))
            #expect(JournalState.parse(Data()) == .idle)
        }
    }
}
