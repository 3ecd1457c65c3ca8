import Foundation
import Testing

@testable import DAOKit

/// `Date`, `Data`, `URL`, `UUID` and `Decimal` travel as values: no formatting, no precision loss.
@Suite("Foundation values")
struct FoundationValueTests {
    let mapper = EntityMapper()

    @Test func datesKeepEveryBitOfTheirTimeInterval() throws {
        let dates = [
            Date(timeIntervalSinceReferenceDate: 0.000_000_1), Date(timeIntervalSince1970: -1e10),
            Date.distantFuture, Date(timeIntervalSinceReferenceDate: .ulpOfOne),
        ]
        let mapped = try mapper.map(dates, to: [Date].self)
        #expect(
            mapped.map(\.timeIntervalSinceReferenceDate.bitPattern)
                == dates.map(\.timeIntervalSinceReferenceDate.bitPattern))
    }

    @Test func dataIsCarriedAsIs() throws {
        let blob = Data((0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        #expect(try mapper.map(blob, to: Data.self) == blob)
        #expect(try mapper.map(Data(), to: Data.self) == Data())
    }

    @Test func dataMapsToAndFromAnArrayOfBytes() throws {
        let bytes: [UInt8] = [0, 1, 254, 255]
        #expect(try mapper.map(Data(bytes), to: [UInt8].self) == bytes)
        #expect(try mapper.map(bytes, to: Data.self) == Data(bytes))
    }

    @Test func relativeURLsKeepTheirBaseURL() throws {
        let base = try #require(URL(string: "https://example.com/a/"))
        let relative = try #require(URL(string: "b/c.png", relativeTo: base))
        let mapped = try mapper.map(relative, to: URL.self)
        #expect(mapped.baseURL == base)
        #expect(mapped.relativeString == "b/c.png")
        #expect(mapped.absoluteString == "https://example.com/a/b/c.png")
    }

    @Test func urlsAndUUIDsConvertToAndFromTheirStringsAsJSONWould() throws {
        let id = UUID()
        #expect(try mapper.map(id, to: String.self) == id.uuidString)
        #expect(try mapper.map(id.uuidString, to: UUID.self) == id)
        #expect(try mapper.map("https://example.com/x", to: URL.self) == URL(string: "https://example.com/x"))
        #expect(try mapper.map(URL(string: "https://example.com/x")!, to: String.self) == "https://example.com/x")
    }

    @Test func anInvalidUUIDStringIsDataCorrupted() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map("not-a-uuid", to: UUID.self) }
        guard case .dataCorrupted = error.kind else {
            Issue.record("expected dataCorrupted, got \(error.kind)")
            return
        }
    }

    @Test func decimalsKeepAllTheirDigits() throws {
        let amount = try #require(Decimal(string: "12345678901234567890.123456789012345678"))
        #expect(try mapper.map(amount, to: Decimal.self) == amount)
        #expect(try mapper.map(Invoice(total: amount), to: Invoice.self).total == amount)
    }

    @Test func datesConvertToAndFromSecondsSinceTheReferenceDateAsJSONWould() throws {
        #expect(try mapper.map(Date(timeIntervalSinceReferenceDate: 12.5), to: Double.self) == 12.5)
        #expect(try mapper.map(12.5, to: Date.self) == Date(timeIntervalSinceReferenceDate: 12.5))
    }

    @Test func foundationValuesInsideEntitiesMap() throws {
        let record = FoundationRecord(
            id: UUID(), created: Date(), payload: Data([1, 2, 3]), link: URL(string: "https://x.y/z")!,
            price: Decimal(string: "9.99")!)
        #expect(try mapper.map(record, to: FoundationRecord.self) == record)
    }
}

struct Invoice: Codable { let total: Decimal }

struct FoundationRecord: Codable, Equatable {
    let id: UUID
    let created: Date
    let payload: Data
    let link: URL
    let price: Decimal
}
