import DAOKitInternals
import Testing

/// `validatedString` accepts exactly the code units that spell text in their encoding: what
/// `String(decoding:as:)` would repair (replacing with U+FFFD) is refused instead, on the ASCII
/// shortcut and on the general path alike.
@Suite("Validated strings: text only from valid code units")
struct ValidatedStringTests {
    @Test(
        "valid UTF-8 reads as its text",
        arguments: ["", "Message", "a/b%~", "\u{0}\u{7F}", "é", "e\u{301}", "日本", "🧑‍💻", "ascii then é"])
    func validUTF8ReadsAsItsText(_ text: String) {
        #expect(validatedString(Array(text.utf8), as: UTF8.self) == text)
        #expect(validatedString(Array(text.utf8)[...], as: UTF8.self) == text)
        #expect(validatedString(Array(text.utf16), as: UTF16.self) == text)
    }

    @Test(
        "invalid UTF-8 is refused",
        arguments: [
            [0x80], [0xC3], [0x61, 0xC3], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xFF],
            [0x61, 0x62, 0xE6, 0x97],
        ] as [[UInt8]])
    func invalidUTF8IsRefused(_ bytes: [UInt8]) {
        #expect(validatedString(bytes, as: UTF8.self) == nil)
    }

    @Test func aLoneSurrogateIsRefusedInUTF16() {
        #expect(validatedString([0x61, 0xD800] as [UInt16], as: UTF16.self) == nil)
        #expect(validatedString([0xDC00] as [UInt16], as: UTF16.self) == nil)
    }
}
