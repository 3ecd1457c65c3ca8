import DAOKitInternals
import DAOKitStoreFormat
import Foundation
import Testing

/// The seal of a JSON record: exactly `{"checksum":"<8 hex digits>",` before the envelope's body,
/// the CRC-32C of that body, and read back as intact; any other first bytes are not a seal.
@Suite("Record envelope seals: the checksum spelled before the body")
struct RecordEnvelopeSealTests {
    @Test(
        "a sealed envelope is its body behind the checksum's eight digits",
        arguments: [
            #"{}"#, #"{"entity":{"id":"a"},"formatVersion":2,"key":"a"}"#, "{" + String(repeating: "x", count: 5000),
        ])
    func aSealedEnvelopeIsItsBodyBehindTheChecksumsEightDigits(_ envelope: String) {
        let body = Data(envelope.utf8.dropFirst())
        let digits = String(CRC32C.checksum(body), radix: 16)
        let expected =
            Data(#"{"checksum":""#.utf8) + Data((String(repeating: "0", count: 8 - digits.count) + digits).utf8)
            + Data(#"","#.utf8) + body
        let sealed = RecordEnvelope.sealed(Data(envelope.utf8))
        #expect(sealed == expected)
        #expect(sealed.count == RecordEnvelope.sealLength + body.count)
        #expect(RecordEnvelope.seal(of: sealed) == .intact(bodyStart: RecordEnvelope.sealLength))
        #expect(RecordEnvelope.sealedBodyStart(of: sealed) == RecordEnvelope.sealLength)
    }

    @Test func aSealOfAnEnvelopeSlicedFromALargerBufferCoversOnlyTheEnvelope() {
        let buffer = Data("xx{\"k\":1}yy".utf8)
        let envelope = buffer[buffer.startIndex + 2..<buffer.endIndex - 2]
        let sealed = RecordEnvelope.sealed(envelope)
        #expect(sealed.suffix(6) == Data(#""k":1}"#.utf8))
        #expect(RecordEnvelope.seal(of: sealed) == .intact(bodyStart: RecordEnvelope.sealLength))
    }

    @Test(
        "bytes that do not begin with a well-formed seal have no sealed body",
        arguments: [
            #"{"entity":1}"#, #"{"checksum":"1234567","#, #"{"checksum":"12345678"x"#, #"{"checksum":"12345678""#, "",
        ])
    func bytesThatDoNotBeginWithAWellFormedSealHaveNoSealedBody(_ text: String) {
        #expect(RecordEnvelope.sealedBodyStart(of: Data(text.utf8)) == nil)
    }
}
