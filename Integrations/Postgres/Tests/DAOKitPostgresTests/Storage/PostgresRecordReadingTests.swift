import DAOKit
import DAOKitPostgres
import DAOKitPostgresTestSupport
import DAOKitTesting
import Testing

/// How rows become entities on every read path (by id, all, readable, query): the record's bytes
/// decode as stored, escapes undone, and a record that does not decode is reported under the key
/// it was saved with, which the reads only spell out for such records.
@Suite("Postgres record reading")
struct PostgresRecordReadingTests {
    /// NUL, the escape mark, and the mark followed by the digits the escapes use.
    static let awkward = "nul\0 mark\u{10FFFF} mark-zero\u{10FFFF}0 mark-one\u{10FFFF}1 end"

    @Test func stringsHoldingNULAndTheEscapeMarkReadBackEqualThroughEveryRead() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let note = FixtureNoteEntity(id: "key " + Self.awkward, body: Self.awkward)
        let plain = FixtureNoteEntity(id: "plain", body: "no escapes")
        try await context.save([note, plain], mode: .upsert)

        #expect(try await context.fetch(FixtureNoteEntity.self, id: note.id) == note)
        #expect(try await context.fetchAll(FixtureNoteEntity.self).sorted { $0.id < $1.id } == [note, plain])
        let readable = try await context.fetchReadable(FixtureNoteEntity.self)
        #expect(readable.values.sorted { $0.id < $1.id } == [note, plain])
        #expect(readable.failures.isEmpty)
        #expect(
            try await context.fetch(FixtureNoteEntity.self, matching: StorageQuery()).sorted { $0.id < $1.id } == [
                note, plain,
            ])
    }

    @Test func anUndecodableRecordIsReportedUnderItsSavedKeyByFetchReadable() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        try await plantLabels(in: context)

        let readable = try await context.fetchReadable(LabelEntity.self)
        #expect(readable.values == [LabelEntity(id: "good", count: 1)])
        #expect(readable.failures.map(\.storageKey) == [Self.badKey])
        let failure = try #require(readable.failures.first)
        #expect(failure.error.kind == .decodingFailed)
        #expect(failure.error.key == Self.badKey)
        #expect(failure.error.entityName == LabelEntity.entityName)
        #expect(failure.error.location == (try TestServer.configuration()).serverDescriptionForTests)
    }

    @Test func anUndecodableRecordFailsEveryWholeReadNamingItsSavedKey() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        try await plantLabels(in: context)

        let all = try await #require(throws: StorageError.self) { try await context.fetchAll(LabelEntity.self) }
        #expect(all.key == Self.badKey && all.kind == .decodingFailed, "\(all)")
        let byID = try await #require(throws: StorageError.self) {
            try await context.fetch(LabelEntity.self, id: Self.badKey)
        }
        #expect(byID.key == Self.badKey && byID.kind == .decodingFailed, "\(byID)")
        let queried = try await #require(throws: StorageError.self) {
            try await context.fetch(LabelEntity.self, matching: StorageQuery(limit: 10))
        }
        #expect(queried.key == Self.badKey && queried.kind == .decodingFailed, "\(queried)")
        #expect(
            try await context.fetch(LabelEntity.self, id: "good") == LabelEntity(id: "good", count: 1),
            "the record that decodes still reads by id")
    }

    /// A key that is stored escaped (NUL, the escape mark), so an error naming it shows the
    /// escapes were undone.
    static let badKey = "bad\0key\u{10FFFF}"

    /// One label that decodes and one, saved by another version, that does not.
    private func plantLabels(in context: PostgresStorageContext) async throws {
        try await context.save([LabelEntity(id: "good", count: 1)], mode: .upsert)
        try await context.save([LabelRecord(id: Self.badKey, count: "many")], mode: .upsert)
    }
}

/// A label as this version reads it.
private struct LabelEntity: Storable, Equatable {
    static var entityName: String { "Label" }
    var id: String
    var count: Int
}

/// A label as another version wrote it: its count is text, which ``LabelEntity`` cannot decode.
private struct LabelRecord: Storable {
    static var entityName: String { "Label" }
    var id: String
    var count: String
}
