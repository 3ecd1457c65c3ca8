import DAOKit
import Testing

/// `ReadableRecords.valuesIfComplete(entityName:location:)`, on which the contexts build
/// `fetchAll`: the values only when nothing failed, otherwise the failure itself or all of them.
@Suite("Values only when every record was read")
struct ReadableRecordsCompletenessTests {
    typealias Records = ReadableRecords<String, Int>

    static func failure(key: Int) -> UnreadableRecord<Int> {
        UnreadableRecord(
            storageKey: String(key),
            error: StorageError(.decodingFailed, entityName: "Note", key: String(key), location: "notes.db")
        )
    }

    @Test func noFailureGivesEveryValueInOrder() throws {
        let records = Records(values: ["b", "a", "c"], failures: [])
        #expect(try records.valuesIfComplete(entityName: "Note", location: nil) == ["b", "a", "c"])
    }

    @Test func noRecordAtAllGivesNoValues() throws {
        #expect(try Records(values: [], failures: []).valuesIfComplete(entityName: "Note", location: nil).isEmpty)
    }

    @Test func oneFailureThrowsThatRecordsOwnError() {
        let records = Records(values: ["a"], failures: [Self.failure(key: 7)])
        let error = #expect(throws: StorageError.self) {
            try records.valuesIfComplete(entityName: "Note", location: "x")
        }
        #expect(error?.kind == .decodingFailed)
        #expect(error?.key == "7")
        #expect(error?.location == "notes.db")
        #expect(error?.underlyingError == nil)
    }

    @Test func severalFailuresThrowOneErrorListingEach() {
        let records = Records(values: ["a"], failures: [Self.failure(key: 7), Self.failure(key: 9)])
        let error = #expect(throws: StorageError.self) {
            try records.valuesIfComplete(entityName: "Note", location: "x")
        }
        #expect(error?.entityName == "Note")
        #expect(error?.location == "x")
        let list = error?.underlyingError as? RecordFailures
        #expect(list?.failures.map(\.key) == ["7", "9"])
    }
}
