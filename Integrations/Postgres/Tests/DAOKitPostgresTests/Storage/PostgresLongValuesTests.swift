import DAOKit
import DAOKitSQL
import Foundation
import PostgresNIO
import Testing

@testable import DAOKitPostgres

/// Ids and indexed strings of any length, as every other context stores them: the primary key is
/// the key's SHA-256 and an index holds a string's first characters (see `PostgresSchema.swift`),
/// so that no value meets the B-tree's limit on an entry, and equality and range queries still
/// find their rows through an index.
@Suite("Postgres long ids and indexed strings", .timeLimit(.minutes(3)))
struct PostgresLongValuesTests {
    /// About a megabyte, with backslashes (which the key hash doubles) and non-ASCII text.
    static let megabyte = String(repeating: "é\\x😀 ", count: 130_000)

    @Test func idsOfAMegabyteAreSavedReadCheckedAndDeletedAsOtherIds() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let first = Document(id: Self.megabyte + "1", title: "one", folder: "f")
        let second = Document(id: Self.megabyte + "2", title: "two", folder: "f")  // the same first megabyte
        try await context.save([first, second], mode: .upsert)
        #expect(try await context.fetch(Document.self, id: first.id) == first)
        #expect(try await context.fetch(Document.self, id: second.id) == second)
        #expect(try await context.fetch(Document.self, id: Self.megabyte) == nil)
        let duplicate = try await #require(throws: StorageError.self) { try await context.save([first], mode: .insert) }
        #expect(duplicate.kind == .duplicateID && duplicate.key == first.id)
        let missing = try await #require(throws: StorageError.self) {
            try await context.save([Document(id: Self.megabyte, title: "none", folder: "f")], mode: .update)
        }
        #expect(missing.kind == .missingID)
        var renamed = first
        renamed.title = "renamed"
        try await context.save([renamed], mode: .update)
        #expect(try await context.fetch(Document.self, id: first.id) == renamed)
        #expect(Set(try await context.storedKeys(Document.self)) == [first.id, second.id])
        try await context.delete(Document.self, ids: [first.id])
        #expect(try await context.fetchAll(Document.self) == [second])
        try await context.delete(Document.self, matching: .compare("title", .equal, .string("two")))
        #expect(try await context.count(Document.self) == 0)
    }

    @Test func indexedStringsOfAMegabyteAreSavedAndQueriedExactly() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        // ASCII, so that SQL compares them; alike in their first megabyte, so only the rest differs.
        let long = String(repeating: "abc\\", count: 250_000)
        let documents = [
            Document(id: "a", title: long + "a", folder: long),
            Document(id: "b", title: long + "b", folder: long),
            Document(id: "c", title: long, folder: "short"),
            Document(id: "d", title: "short", folder: long + "z"),
        ]
        try await context.save(documents, mode: .upsert)
        let queries: [StorageQuery] = [
            StorageQuery(filter: .compare("title", .equal, .string(long + "b"))),
            StorageQuery(filter: .compare("title", .less, .string(long + "b"))),
            StorageQuery(filter: .compare("title", .greaterOrEqual, .string(long + "a"))),
            StorageQuery(
                filter: .and([.compare("folder", .equal, .string(long)), .compare("title", .greater, .string(long))])),
            StorageQuery(filter: .isIn("title", [.string(long), .string(long + "b"), .string("absent")])),
            StorageQuery(sort: [StorageSortKey("title", order: .reverse)]),
            StorageQuery(sort: [StorageSortKey("folder"), StorageSortKey("title")], limit: 3),
        ]
        for query in queries {
            #expect(try await context.translation(of: query, for: Document.self).isExact, "\(query)")
            let fetched = try await context.fetch(Document.self, matching: query)
            #expect(fetched.map(\.id) == (try query.apply(to: documents)).map(\.id), "\(query)")
            if let filter = query.filter {
                #expect(try await context.count(Document.self, matching: filter) == fetched.count, "\(query)")
            }
        }
        #expect(try await context.fetch(Document.self, id: "b") == documents[1], "read back as stored")
    }

    @Test func equalityRangeAndMembershipOnAnIndexedStringUseItsIndex() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        try await context.save(
            (0..<200).map { Document(id: "\($0)", title: "title \($0)", folder: "folder \($0 % 5)") }, mode: .upsert)
        let filters: [StorageFilter] = [
            .compare("title", .equal, .string("title 7")),
            .compare("title", .less, .string("title 2")),
            .compare("title", .greaterOrEqual, .string("title 9")),
            .isIn("title", (0..<20).map { .string("title \($0)") }),
        ]
        for filter in filters {
            for generic in [false, true] {
                let plan = try await context.plan(
                    of: StorageQuery(filter: filter), for: Document.self, generic: generic)
                #expect(plan.contains { $0.contains("daokit_p0_") }, "\(filter), generic: \(generic): \(plan)")
            }
        }
        // Sorted by the index, a page needs no full sort.
        let page = try await context.plan(
            of: StorageQuery(
                filter: .compare("folder", .equal, .string("folder 1")),
                sort: [StorageSortKey("title")], limit: 5), for: Document.self)
        #expect(page.contains { $0.contains("daokit_p1_") }, "\(page)")
        // A read by id goes through the primary key.
        let table = "\"\(context.schema)\".\"Document\""
        let byID = try await TestServer.withConnection { connection in
            try await connection.query("SET enable_seqscan = off", logger: TestServer.logger)
            var lines: [String] = []
            let explain = PostgresQuery(
                unsafeSQL: "EXPLAIN SELECT record FROM \(table) WHERE " + PostgresSchema.keyIs("'7'::text"))
            for try await line in try await connection.query(explain, logger: TestServer.logger).decode(String.self) {
                lines.append(line)
            }
            return lines
        }
        #expect(byID.contains { $0.contains("Document_pkey") }, "\(byID)")
    }

    @Test func aStoreOfTheEarlierLayoutIsMigratedOnFirstUseAndKeepsItsRecords() async throws {
        let schema = TestServer.freshSchema()
        let oldIndex =
            "daokit_i0_" + String(PostgresSchema.stableHash(schema + "\u{0}" + Document.entityName), radix: 16)
        // The earlier layout, as a context of the previous version left it.
        try await TestServer.withConnection { connection in
            for statement in PostgresSchema.bootstrap(schema: schema) + [
                "CREATE TABLE \"\(schema)\".\"Document\" (daokit_key text COLLATE \"C\" PRIMARY KEY, record jsonb NOT NULL)",
                "CREATE INDEX \"\(oldIndex)\" ON \"\(schema)\".\"Document\" (((record ->> 'title') COLLATE \"C\") NULLS FIRST)",
                "INSERT INTO \"\(schema)\".daokit_entities VALUES ('Document')",
                "INSERT INTO \"\(schema)\".daokit_field_kinds VALUES ('Document', 'title', 'asciiString'), ('Document', 'folder', 'asciiString')",
                """
                INSERT INTO "\(schema)"."Document" VALUES ('old-1', '{"id":"old-1","title":"first","folder":"f"}'), \
                ('old-2', '{"id":"old-2","title":"second","folder":"f"}')
                """,
            ] {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: TestServer.logger)
            }
        }
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        #expect(
            try await context.fetch(Document.self, id: "old-2") == Document(id: "old-2", title: "second", folder: "f"))
        let long = Document(id: Self.megabyte, title: String(repeating: "t", count: 1_000_000), folder: "f")
        try await context.save([long], mode: .upsert)
        #expect(
            try await context.fetch(
                Document.self, matching: StorageQuery(filter: .compare("title", .equal, .string(long.title)))) == [long]
        )
        let duplicate = try await #require(throws: StorageError.self) {
            try await context.save([Document(id: "old-1", title: "again", folder: "f")], mode: .insert)
        }
        #expect(duplicate.kind == .duplicateID, "the migrated rows are keyed as new ones: \(duplicate)")
        #expect(try await context.count(Document.self) == 3)
        let indexes = try await TestServer.withConnection { connection in
            var names: [String] = []
            let rows = try await connection.query(
                PostgresQuery(unsafeSQL: "SELECT indexname::text FROM pg_indexes WHERE schemaname = '\(schema)'"),
                logger: TestServer.logger)
            for try await name in rows.decode(String.self) { names.append(name) }
            return names
        }
        #expect(!indexes.contains(oldIndex), "the earlier index on whole strings is gone: \(indexes)")
        #expect(indexes.contains { $0.hasPrefix("daokit_p0_") }, "\(indexes)")
    }
}

/// A document with an indexed title, and an index on (folder, title).
private struct Document: Storable, Equatable {
    static var entityName: String { "Document" }
    static var indexes: [StorageIndex] { [StorageIndex("title"), StorageIndex("folder", "title")] }
    var id: String
    var title: String
    var folder: String
}
