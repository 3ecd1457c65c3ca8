import DAOKit
import Foundation
import Testing

@Suite("StorageKey")
struct StorageKeyTests {
    @Test(arguments: ["", "a/b", "\0", "日本", String(repeating: "x", count: 500)])
    func aStringIsItsOwnStorageKey(_ id: String) {
        #expect(id.storageKey == id)
        #expect(String(storageKey: id.storageKey) == id)
    }

    @Test(arguments: [0, 1, -1, Int.max, Int.min])
    func anIntRoundTripsThroughItsDecimalDigits(_ id: Int) {
        #expect(id.storageKey == String(id))
        #expect(Int(storageKey: id.storageKey) == id)
    }

    @Test(arguments: [Int64.max, Int64.min, 0])
    func anInt64RoundTripsThroughItsDecimalDigits(_ id: Int64) {
        #expect(Int64(storageKey: id.storageKey) == id)
    }

    @Test func aUUIDRoundTripsThroughItsUpperCaseString() {
        let id = UUID()
        #expect(id.storageKey == id.uuidString)
        #expect(id.storageKey == id.storageKey.uppercased())
        #expect(UUID(storageKey: id.storageKey) == id)
    }

    @Test(arguments: ["", "12a", " 1", "0x10", "1.0", "99999999999999999999"])
    func aStringThatIsNotAnIntegerIsNoIntKey(_ text: String) {
        #expect(Int(storageKey: text) == nil)
        #expect(Int64(storageKey: text) == nil)
    }

    @Test(arguments: ["", "not-a-uuid", "6B0E4A4E-8D3C-4C57-9E0B"])
    func aStringThatIsNotAUUIDIsNoUUIDKey(_ text: String) {
        #expect(UUID(storageKey: text) == nil)
    }
}
