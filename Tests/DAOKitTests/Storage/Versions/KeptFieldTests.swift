import DAOKit
import DAOKitFileStore
import DAOKitTestSupport
import Foundation
import Testing

/// The contexts that keep entity versions.
private let versionedContexts: [ContextFactory] = [
    .keyValueInMemory, .keyValueUserDefaults, .fileJSON, .filePropertyList, .sqliteFile,
]

/// The first release of a note.
private struct NoteV1: Storable, Equatable {
    static var entityName: String { "Note" }
    var id: String
    var title: String
    var body: String
    var pinnedAt: Date?
}

/// The second release stops reading `body`, and says that the first still reads its records.
private struct NoteV2: Storable, Equatable {
    static var entityName: String { "Note" }
    static let schema = EntitySchema(version: 2, readableFrom: 1, steps: [2: [.removed("body")]])
    var id: String
    var title: String
    var pinnedAt: Date?
}

@Suite("Code that does not know a field does not erase it")
struct KeptFieldTests {
    @Test(arguments: versionedContexts)
    func anUpdateByCodeThatRemovedAFieldKeepsItForARollback(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        let pinned = Date(timeIntervalSinceReferenceDate: 1_000.5)
        try context.save([NoteV1(id: "a", title: "Draft", body: "kept\u{0}text 🎉", pinnedAt: pinned)])
        // Version 2 renames the note twice and unpins it, in a batch and alone.
        try context.save([NoteV2(id: "a", title: "Renamed", pinnedAt: nil), NoteV2(id: "b", title: "New")])
        try context.save([NoteV2(id: "a", title: "Final", pinnedAt: nil)])
        #expect(try context.fetch(NoteV2.self, id: "a") == NoteV2(id: "a", title: "Final", pinnedAt: nil))
        // Rolled back, version 1 reads what version 2 wrote over its record, its body included.
        #expect(try context.fetch(NoteV1.self, id: "a") == NoteV1(id: "a", title: "Final", body: "kept\u{0}text 🎉"))
        // A note version 2 created never had a body: version 1 cannot read it, and says so.
        #expect(throws: StorageError.self) { try context.fetch(NoteV1.self, id: "b") }
    }

    @Test(arguments: versionedContexts)
    func aTransactionAndMigrateKeepItToo(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = try #require(fresh.context as? any VersionedStorageContext)
        try context.save([NoteV1(id: "a", title: "A", body: "one"), NoteV1(id: "b", title: "B", body: "two")])
        try update(context)
        #expect(try BaseDao<NoteV2, NoteV2>(context: context).migrate() == 1)
        #expect(try context.fetch(NoteV1.self, id: "a")?.body == "one")
        #expect(try context.fetch(NoteV1.self, id: "b") == NoteV1(id: "b", title: "B", body: "two"))
    }

    private func update<C: VersionedStorageContext>(_ context: C) throws {
        try context.transaction { tx in try tx.save([NoteV2(id: "a", title: "A2")]) }
        #expect(try context.fetch(NoteV1.self, id: "a") == NoteV1(id: "a", title: "A2", body: "one"))
    }

    @Test(arguments: versionedContexts)
    func aFieldRemovedAndAddedBackIsNotKept(_ factory: ContextFactory) throws {
        struct NoteV3: Storable, Equatable {
            static var entityName: String { "Note" }
            static let schema = EntitySchema(
                version: 3, steps: [2: [.removed("body")], 3: [.added("body", default: "")]])
            var id: String
            var title: String
            var body: String
        }
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([NoteV1(id: "a", title: "A", body: "old")])
        try fresh.context.save([NoteV3(id: "a", title: "A", body: "new")])
        #expect(try fresh.context.fetch(NoteV3.self, id: "a")?.body == "new")
    }
}
