import DAOKit
import DAOKitSQLite
import DAOKitTestSupport
import Foundation
import Testing

/// A record of `CrashRecord`'s table written by a type whose `generation` is text: it does not
/// decode as ``FileCrashRecord``.
private struct TextGenerationRecord: Storable {
    static var entityName: String { "CrashRecord" }
    var id: String
    var generation: String
    var payload: String
}

/// An entity that encodes through `nestedContainer` and `superEncoder` at the top: stored through
/// the JSON fallback.
private struct HandCodedRecord: Storable, Equatable {
    var id: Int
    var name: String
    var tags: [String]
    var when: Date

    enum CodingKeys: String, CodingKey { case id, details, base }
    enum DetailKeys: String, CodingKey { case name, tags }

    init(id: Int, name: String, tags: [String], when: Date) {
        self.id = id
        self.name = name
        self.tags = tags
        self.when = when
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        var details = container.nestedContainer(keyedBy: DetailKeys.self, forKey: .details)
        try details.encode(name, forKey: .name)
        try details.encode(tags, forKey: .tags)
        var base = container.superEncoder(forKey: .base).singleValueContainer()
        try base.encode(when)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(Int.self, forKey: .id)
        let details = try container.nestedContainer(keyedBy: DetailKeys.self, forKey: .details)
        name = try details.decode(String.self, forKey: .name)
        tags = try details.decode([String].self, forKey: .tags)
        when = try container.superDecoder(forKey: .base).singleValueContainer().decode(Date.self)
    }
}

/// A value that refuses to be encoded when asked to hold `refused`.
private struct PickyRecord: Storable {
    var id: String
    var value: Int
    struct Refused: Error {}
    func encode(to encoder: any Encoder) throws {
        if value < 0 { throw Refused() }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(value, forKey: .value)
    }
}

@Suite("SQLite records")
struct SQLiteRecordTests {
    @Test func aRowThatDoesNotDecodeIsNamedAndTheOthersStillRead() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let context = try database.open()
        try context.save([FileCrashRecord(id: "good", generation: 1, payload: "p")])
        try context.save([TextGenerationRecord(id: "bad", generation: "one", payload: "p")])
        let error = try #require(throws: StorageError.self) { try context.fetchAll(FileCrashRecord.self) }
        #expect(error.kind == .decodingFailed)
        #expect(error.key == "bad")
        #expect(error.location == database.file.path)
        #expect(
            error.description.hasPrefix("CrashRecord \"bad\": the record could not be decoded at \(database.file.path)")
        )
        let readable = try context.fetchReadable(FileCrashRecord.self)
        #expect(readable.values.map(\.id) == ["good"])
        #expect(readable.failures.map(\.storageKey) == ["bad"])
        #expect(Set(try context.storedKeys(FileCrashRecord.self)) == ["good", "bad"])
        try context.delete(FileCrashRecord.self, storageKeys: ["bad"])
        #expect(try context.fetchAll(FileCrashRecord.self).map(\.id) == ["good"])
    }

    @Test func aBatchWithOneUnencodableRecordWritesNothing() throws {
        let context = try SQLiteStorageContext()
        try context.save([PickyRecord(id: "a", value: 1)])
        let error = try #require(throws: StorageError.self) {
            try context.save([PickyRecord(id: "a", value: 2), PickyRecord(id: "b", value: -1)])
        }
        #expect(error.kind == .encodingFailed)
        #expect(error.key == "b")
        #expect(try context.fetch(PickyRecord.self, id: "a")?.value == 1)
        #expect(try context.count(PickyRecord.self) == 1)
    }

    @Test func anInsertOfAStoredIDNamesItAndWritesNothing() throws {
        let context = try SQLiteStorageContext()
        try context.save([FileCrashRecord(id: "a", generation: 1, payload: "p")])
        let error = try #require(throws: StorageError.self) {
            try context.save(
                [
                    FileCrashRecord(id: "b", generation: 1, payload: "p"),
                    FileCrashRecord(id: "a", generation: 2, payload: "p"),
                ],
                mode: .insert)
        }
        #expect(error.kind == .duplicateID)
        #expect(error.key == "a")
        #expect(try context.count(FileCrashRecord.self) == 1)
    }

    @Test func anEntityCodedByHandRoundTripsThroughTheJSONFallback() throws {
        let context = try SQLiteStorageContext()
        let records = (0..<5).map {
            HandCodedRecord(
                id: $0, name: "n\($0)", tags: ["t\($0)"], when: Date(timeIntervalSinceReferenceDate: Double($0)))
        }
        try context.save(records)
        #expect(try context.fetch(HandCodedRecord.self, id: 3) == records[3])
        #expect(try context.fetchAll(HandCodedRecord.self).sorted { $0.id < $1.id } == records)
        // Its fields are opaque to SQL: queries are evaluated in Swift, with the same answers.
        let query = StorageQuery(
            filter: .compare("id", .greater, .int(2)), sort: [StorageSortKey("id", order: .reverse)], limit: 1)
        #expect(try context.fetch(HandCodedRecord.self, matching: query) == [records[4]])
    }

    @Test func namesOfDAOKitsOwnTablesAreRefused() throws {
        struct Intruder: Storable {
            static var entityName: String { "daokit_field_kinds" }
            var id: String
        }
        let context = try SQLiteStorageContext()
        let error = try #require(throws: StorageError.self) { try context.save([Intruder(id: "x")]) }
        #expect(error.kind == .encodingFailed)
        #expect(error.description.contains("reserved"))
    }

    @Test func entityNamesDifferingOnlyInCaseAreRefusedNotMixed() throws {
        struct Lower: Storable {
            static var entityName: String { "note" }
            var id: String
        }
        struct Upper: Storable {
            static var entityName: String { "Note" }
            var id: String
            var text: String
        }
        let context = try SQLiteStorageContext()
        try context.save([Upper(id: "a", text: "alpha")])
        let error = try #require(throws: StorageError.self) { try context.save([Lower(id: "b")]) }
        #expect(error.entityName == "note")
        #expect(error.description.contains("entity names must differ in more than case"), "\(error)")
        #expect(throws: StorageError.self) { try context.fetchAll(Lower.self) }
        #expect(try context.count(Upper.self) == 1)
    }

    @Test func aSortOnAnOptionalBoolPutsMissingValuesFirst() throws {
        struct Flagged: Storable, Equatable {
            var id: Int
            var flag: Bool?
            var rank: Int
        }
        let context = try SQLiteStorageContext()
        let records = [
            Flagged(id: 1, flag: true, rank: 1), Flagged(id: 2, flag: nil, rank: 2),
            Flagged(id: 3, flag: false, rank: 0),
        ]
        try context.save(records)
        let query = StorageQuery(sort: [StorageSortKey("flag"), StorageSortKey("rank")])
        #expect(try context.fetch(Flagged.self, matching: query).map(\.id) == (try query.apply(to: records)).map(\.id))
        #expect(try context.fetch(Flagged.self, matching: query).map(\.id) == [2, 3, 1])
    }

    @Test func aFieldAddedByALaterVersionWidensTheTable() throws {
        struct Before: Storable, Equatable {
            static var entityName: String { "Evolving" }
            var id: String
            var name: String
        }
        struct After: Storable, Equatable {
            static var entityName: String { "Evolving" }
            var id: String
            var name: String
            var nickname: String?
        }
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try database.open().save([Before(id: "a", name: "Ann")])
        let later = try database.open()
        try later.save([After(id: "b", name: "Bob", nickname: "bobby")])
        #expect(try later.fetch(After.self, id: "a") == After(id: "a", name: "Ann", nickname: nil))
        #expect(
            try database.open().fetchAll(Before.self).sorted { $0.id < $1.id } == [
                Before(id: "a", name: "Ann"), Before(id: "b", name: "Bob"),
            ])
        #expect(try later.count(After.self, matching: .isNull("nickname")) == 1)
    }
}
