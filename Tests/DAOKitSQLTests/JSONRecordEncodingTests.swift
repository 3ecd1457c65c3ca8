import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitSQL

/// `JSONRecord.encode` writes what a `jsonb` column cannot lose: -0.0 as a marked string (its
/// `numeric` has no negative zero), NaN as "NaN" for a `Date` as for a `Double`, and the kinds
/// the numbers have.
@Suite("JSON record encoding")
struct JSONRecordEncodingTests {
    struct Reading: Storable {
        var id: Int
        var value: Double
        var at: Date
        var series: [Double]
    }

    /// What a server that keeps numbers as `numeric` gives back: every number's sign lost at zero.
    private func normalizedAsNumeric(_ json: String) -> String {
        json.replacingOccurrences(of: "-0.0", with: "0.0").replacingOccurrences(of: "-0,", with: "0,")
            .replacingOccurrences(of: "-0]", with: "0]")
    }

    @Test func negativeZeroIsStoredAsAMarkedStringAndReadBackNegative() throws {
        let reading = Reading(
            id: 1, value: -0.0, at: Date(timeIntervalSinceReferenceDate: -0.0), series: [-0.0, 1, -0.0])
        let encoded = try JSONRecord.encode(reading)
        #expect(
            encoded.json.components(separatedBy: JSONRecord.negativeZero).count == 5,
            "every -0.0 marked: \(encoded.json)")
        #expect(
            !encoded.json.replacingOccurrences(of: JSONRecord.negativeZero, with: "").contains("-0"),
            "no number a server could turn into +0: \(encoded.json)")
        #expect(encoded.fields.first { $0.name == "value" }?.kind == .real)
        #expect(encoded.fields.first { $0.name == "at" }?.kind == .date)
        let decoded = try JSONRecord.decode(
            Reading.self, from: Data(normalizedAsNumeric(encoded.json).utf8), key: "1", location: "test")
        #expect(decoded.value.sign == .minus && decoded.value == 0)
        #expect(decoded.at.timeIntervalSinceReferenceDate.sign == .minus)
        #expect(decoded.series.map(\.sign) == [.minus, .plus, .minus])
    }

    @Test func aNaNDateIsNaNNotNegativeInfinity() throws {
        let reading = Reading(id: 2, value: .nan, at: Date(timeIntervalSinceReferenceDate: .nan), series: [])
        let encoded = try JSONRecord.encode(reading)
        #expect(encoded.fields.first { $0.name == "at" }?.kind == .nonFinite)
        let decoded = try JSONRecord.decode(Reading.self, from: Data(encoded.json.utf8), key: "2", location: "test")
        #expect(decoded.value.isNaN)
        #expect(decoded.at.timeIntervalSinceReferenceDate.isNaN, "\(decoded.at.timeIntervalSinceReferenceDate)")
    }

    @Test func textThatLooksLikeNegativeZeroStaysText() throws {
        struct Label: Storable {
            var id: String
            var text: String
            var nested: [String]
        }
        let label = Label(id: "-0", text: "-0.0", nested: ["-0", "a-0"])
        let encoded = try JSONRecord.encode(label)
        let decoded = try JSONRecord.decode(Label.self, from: Data(encoded.json.utf8), key: "-0", location: "test")
        #expect(decoded.id == "-0" && decoded.text == "-0.0" && decoded.nested == ["-0", "a-0"])
    }
}
