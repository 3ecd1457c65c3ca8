import DAOKit
import DAOKitPostgresTestSupport
import DAOKitSQL
import DAOKitTesting
import Testing

@testable import DAOKitPostgres

/// A query's SQL depends on the kinds of value each field has held, which another instance may
/// extend at any moment: a query that finds other kinds than its SQL was built for reads them
/// again and answers as Swift would, in fetch, count and delete alike.
@Suite("Postgres queries after another instance stores a new kind", .timeLimit(.minutes(2)))
struct PostgresKindChangeTests {
    /// "e" with a combining acute accent: byte order puts it before "f", Swift's order after.
    private static let decomposed = "e\u{301}"
    private let query = StorageQuery(filter: .compare("body", .less, .string("f")))

    /// Two contexts on one schema, the first holding ASCII bodies only and having queried them
    /// once (so that it knows the field's kinds as ASCII strings), the second then storing a body
    /// that is not ASCII.
    private func contexts() async throws -> (reader: PostgresStorageContext, writer: PostgresStorageContext) {
        let schema = TestServer.freshSchema()
        let reader = try TestServer.context(schema: schema)
        let writer = try TestServer.context(schema: schema)
        try await reader.save(
            [FixtureNoteEntity(id: "a", body: "a"), FixtureNoteEntity(id: "g", body: "g")], mode: .upsert)
        #expect(try await reader.fetch(FixtureNoteEntity.self, matching: query).map(\.id) == ["a"])
        #expect(
            try await reader.translation(of: query, for: FixtureNoteEntity.self).isExact, "ASCII only: SQL compares")
        try await writer.save([FixtureNoteEntity(id: "accent", body: Self.decomposed)], mode: .upsert)
        return (reader, writer)
    }

    @Test func aFetchAfterAnotherContextStoredANewKindAnswersAsSwift() async throws {
        let (reader, writer) = try await contexts()
        defer {
            reader.close()
            writer.close()
        }
        let expected = try query.apply(to: try await writer.fetchAll(FixtureNoteEntity.self)).map(\.id)
        #expect(expected == ["a"], "Swift orders the accented e after f")
        #expect(try await reader.fetch(FixtureNoteEntity.self, matching: query).map(\.id).sorted() == expected)
    }

    @Test func aCountAfterAnotherContextStoredANewKindAnswersAsSwift() async throws {
        let (reader, writer) = try await contexts()
        defer {
            reader.close()
            writer.close()
        }
        #expect(try await reader.count(FixtureNoteEntity.self, matching: .compare("body", .less, .string("f"))) == 1)
    }

    @Test func aDeleteAfterAnotherContextStoredANewKindRemovesOnlyWhatSwiftSelects() async throws {
        let (reader, writer) = try await contexts()
        defer {
            reader.close()
            writer.close()
        }
        try await reader.delete(FixtureNoteEntity.self, matching: .compare("body", .less, .string("f")))
        #expect(try await writer.fetchAll(FixtureNoteEntity.self).map(\.id).sorted() == ["accent", "g"])
    }
}
