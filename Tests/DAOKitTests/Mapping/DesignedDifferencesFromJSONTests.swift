import Foundation
import Testing

@testable import DAOKit

/// Where the mapper differs from a `JSONEncoder` + `JSONDecoder` round trip on purpose (README's
/// table of differences): each test states what JSON does and what the mapper does instead.
@Suite("Designed differences from JSON")
struct DesignedDifferencesFromJSONTests {
    let mapper = EntityMapper()

    func jsonRoundTrip<T: Decodable>(_ value: some Encodable, as type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: JSONEncoder().encode(value))
    }

    @Test(arguments: [Double.infinity, -.infinity, .nan, .signalingNaN])
    func nonFiniteDoublesPassThroughWhereJSONRefusesThem(_ value: Double) throws {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(value) }
        let mapped = try mapper.map(value, to: Double.self)
        #expect(mapped.bitPattern == value.bitPattern || (mapped.isNaN && value.isNaN))
    }

    @Test func nonFiniteFloatsAndDatesPassThroughToo() throws {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode([Float.infinity]) }
        #expect(try mapper.map([Float.infinity, -.infinity], to: [Float].self) == [.infinity, -.infinity])
        #expect(try mapper.map(Float.nan, to: Float.self).isNaN)
        let endless = Date(timeIntervalSinceReferenceDate: .infinity)
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(endless) }
        #expect(try mapper.map(endless, to: Date.self) == endless)
    }

    @Test func anIntegerBecomesADoubleOnlyWhenExactWhereJSONRounds() throws {
        #expect(try jsonRoundTrip(UInt64.max, as: Double.self) == 18_446_744_073_709_551_616)
        let error = try #require(throws: MappingError.self) { try mapper.map(UInt64.max, to: Double.self) }
        #expect(error.kind == .numberNotRepresentable(value: String(UInt64.max), target: "Double"))
        #expect(try mapper.map(UInt64(1) << 63, to: Double.self) == 0x1p63)
    }

    @Test func aDoubleBecomesAnIntegerOnlyWhenExactWhereJSONReadsItsRoundedText() throws {
        let twoToThe63 = 0x1p63
        #expect(try jsonRoundTrip(twoToThe63, as: UInt64.self) == 9_223_372_036_854_776_000)
        #expect(try mapper.map(twoToThe63, to: UInt64.self) == 9_223_372_036_854_775_808)
        let error = try #require(throws: MappingError.self) { try mapper.map(twoToThe63, to: Int64.self) }
        guard case .numberNotRepresentable = error.kind else {
            Issue.record("expected numberNotRepresentable, got \(error.kind)")
            return
        }
        #expect(throws: DecodingError.self) { try jsonRoundTrip(twoToThe63, as: Int64.self) }
    }

    @Test func aFractionIsNeverAnIntegerInEither() throws {
        #expect(throws: (any Error).self) { try mapper.map(2.5, to: Int.self) }
        #expect(throws: DecodingError.self) { try jsonRoundTrip(2.5, as: Int.self) }
        #expect(try mapper.map(2.0, to: Int.self) == (try jsonRoundTrip(2.0, as: Int.self)))
    }

    @Test func dataMapsAsBytesWhereJSONWritesBase64() throws {
        let data = Data([1, 2, 255])
        #expect(try mapper.map(data, to: [UInt8].self) == [1, 2, 255])
        #expect(throws: DecodingError.self) { try jsonRoundTrip(data, as: [UInt8].self) }
        #expect(try jsonRoundTrip(data, as: String.self) == data.base64EncodedString())
        let error = try #require(throws: MappingError.self) { try mapper.map(data, to: String.self) }
        #expect(error.kind == .typeMismatch(expected: "String", found: "Data"))
        #expect(try mapper.map([UInt8]([7, 8]), to: Data.self) == Data([7, 8]))
    }

    @Test func aTopLevelValueThatEncodesNothingIsAnEmptyKeyedValueWhereJSONRefusesIt() throws {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Nothing()) }
        #expect(try mapper.map(Nothing(), to: [String: Int].self) == [:])
        #expect(try mapper.map(Nothing(), to: NoFieldsStruct.self) == NoFieldsStruct())
    }

    @Test func aRelativeURLKeepsItsBaseWhereJSONMakesItAbsolute() throws {
        let relative = try #require(URL(string: "docs/a.png", relativeTo: URL(string: "https://example.com/base/")))
        #expect(try mapper.map(relative, to: URL.self) == relative)
        let json = try jsonRoundTrip(relative, as: URL.self)
        #expect(json.baseURL == nil && json.absoluteString == relative.absoluteString)
    }
}
