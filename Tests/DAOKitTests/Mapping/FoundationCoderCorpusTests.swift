import Foundation
import Testing

@testable import DAOKit

/// The shapes of Foundation's own coder tests map as a JSON round trip does: every `Encoder` and
/// `Decoder` requirement but `superEncoder`/`superDecoder`, in lenient and strict mode.
@Suite("Differential against JSON: Foundation's coder test shapes")
struct FoundationCoderCorpusTests {
    @Test(arguments: FoundationCoderCorpus.cases)
    func mappingAgreesWithAJSONRoundTrip(_ testCase: DifferentialCase) throws {
        try testCase.check(EntityMapper())
    }

    @Test(arguments: FoundationCoderCorpus.cases)
    func aStrictMapperAgreesToo(_ testCase: DifferentialCase) throws {
        try testCase.check(EntityMapper(strict: true))
    }

    @Test func theCorpusCoversAtLeastFiftyShapes() {
        #expect(Set(FoundationCoderCorpus.cases.map(\.typeName)).count >= 50)
    }
}
