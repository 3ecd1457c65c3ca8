import DAOKitStoreFormat
import Testing

@Suite("FileNameCodec")
struct FileNameCodecTests {
    static let awkwardNames = [
        "", ".", "..", "/", "a/b", "../../etc/passwd", "\0", "nul\0inside", "é", "e\u{301}", "日本語", "🙂",
        "Message", "message", "MESSAGE", "%", "%2f", "^", "^a", "#", "a.b", ".hidden", "trailing.", "-_",
        " spaces and\ttabs\n", "\\", ":", "*?<>|\"",
    ]

    @Test("awkward names round-trip", arguments: awkwardNames)
    func awkwardNamesRoundTrip(_ name: String) {
        let encoded = FileNameCodec.encode(name)
        #expect(FileNameCodec.decode(encoded) == name)
    }

    @Test("encoded names are safe file names", arguments: awkwardNames)
    func encodedNamesAreSafeFileNames(_ name: String) {
        let encoded = FileNameCodec.encode(name)
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789-_.%^#")
        #expect(!encoded.isEmpty)
        #expect(!encoded.hasPrefix("."))
        #expect(encoded.allSatisfy { allowed.contains($0) })
        #expect(encoded.utf8.count <= FileNameCodec.maximumNameLength)
    }

    @Test func namesDifferingOnlyInCaseStayDistinctWhenCaseIsIgnored() {
        let variants = ["message", "Message", "MESSAGE", "mEssage"].map { FileNameCodec.encode($0).lowercased() }
        #expect(Set(variants).count == 4)
    }

    @Test func canonicallyEquivalentNamesShareOneFileName() {
        // Swift says these are equal, so they must be one id and one file.
        #expect("caf\u{e9}" == "cafe\u{301}")
        #expect(FileNameCodec.encode("caf\u{e9}") == "caf%c3%a9")
        #expect(FileNameCodec.encode("cafe\u{301}") == "caf%c3%a9")
        #expect(
            FileNameCodec.encode(String(repeating: "e\u{301}", count: 100), suffixLength: 5)
                == FileNameCodec.encode(String(repeating: "\u{e9}", count: 100), suffixLength: 5))
    }

    @Test func nonASCIIIsEscapedSoNamesArePlainASCII() {
        for name in ["日本語", "🙂", "\u{e9}", "Ω"] {
            #expect(FileNameCodec.encode(name).allSatisfy { $0.isASCII })
        }
    }

    @Test func readableNamesStayReadable() {
        #expect(FileNameCodec.encode("MessageEntity") == "^message^entity")
        #expect(FileNameCodec.encode("user-42_a.json") == "user-42_a.json")
        #expect(FileNameCodec.encode("a/b") == "a%2fb")
        #expect(FileNameCodec.encode("..") == "%2e.")
        #expect(FileNameCodec.encode("") == "%")
    }

    @Test func longNamesFallBackToAStableHash() {
        let long = String(repeating: "k", count: 500)
        let encoded = FileNameCodec.encode(long, suffixLength: 5)
        #expect(encoded.hasPrefix("#"))
        #expect(encoded.utf8.count == 65)
        #expect(FileNameCodec.encode(long, suffixLength: 5) == encoded)
        #expect(FileNameCodec.encode(long + "x", suffixLength: 5) != encoded)
        #expect(FileNameCodec.decode(encoded) == nil)
    }

    @Test func theLimitCountsTheExtensionAndEscapes() {
        let fits = String(repeating: "a", count: 250)
        #expect(FileNameCodec.encode(fits, suffixLength: 5) == fits)
        #expect(FileNameCodec.encode(fits + "a", suffixLength: 5).hasPrefix("#"))
        // 100 characters of 3 escaped bytes each are 900 bytes once escaped.
        #expect(FileNameCodec.encode(String(repeating: "日", count: 30), suffixLength: 5).hasPrefix("#"))
    }

    @Test(
        "names the encoder never produces do not decode",
        arguments: ["ABC", "A", "%2F", "%zz", "%2", "%4", "^A", "^", "%61", "%41", "#abc", "a^", "%ff", "%c3", "a%2e."])
    func nonCanonicalNamesDoNotDecode(_ stem: String) {
        #expect(FileNameCodec.decode(stem) == nil)
    }

    @Test func hashedNamesAreRecognizedByTheirShape() {
        let hashed = FileNameCodec.encode(String(repeating: "k", count: 300), suffixLength: 5)
        #expect(FileNameCodec.isHashed(hashed))
        #expect(FileNameCodec.isHashed("#" + String(repeating: "0", count: 64)))
        for stem in [
            "#", "#" + String(repeating: "0", count: 63), "#" + String(repeating: "A", count: 64),
            "#" + String(repeating: "0", count: 65), "x" + String(repeating: "0", count: 64), "plain", "%23abc",
        ] {
            #expect(!FileNameCodec.isHashed(stem), "\(stem)")
        }
    }
}

@Suite("SHA256")
struct SHA256Tests {
    @Test(
        "matches the FIPS 180-4 test vectors",
        arguments: [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            (
                "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
            ),
            (
                "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
                "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"
            ),
        ])
    func matchesTheStandardVectors(_ message: String, _ digest: String) {
        #expect(SHA256.hexDigest(message) == digest)
    }

    @Test func digestsAreThirtyTwoBytesForEveryPaddingLength() {
        // 55, 56 and 64 bytes straddle the padding boundaries.
        let lengths = [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000]
        let digests = lengths.map { SHA256.digest(Array(repeating: UInt8(ascii: "a"), count: $0)) }
        #expect(digests.allSatisfy { $0.count == 32 })
        #expect(Set(digests).count == lengths.count)
    }
}
