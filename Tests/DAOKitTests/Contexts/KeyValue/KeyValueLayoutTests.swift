import DAOKit
import DAOKitTesting
import Foundation
import Testing

/// The store keys of KeyValueStorageContext, seen from the store.
@Suite("KeyValueStorageContext layout")
struct KeyValueLayoutTests {
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%")

    @Test func everyAwkwardIDGetsItsOwnSafeReversibleKey() throws {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        let ids = StorageContextContract.awkwardIDs
        try context.save(ids.map { FixtureNoteEntity(id: $0, body: "") })
        try context.save(ids.map { FixtureTagEntity(id: $0, label: "") })
        let recordKeys = store.contents.keys.filter {
            $0.split(separator: "/", omittingEmptySubsequences: false).count == 3
        }
        #expect(recordKeys.count == ids.count * 2)
        #expect(store.contents.count == ids.count * 2)
        for key in recordKeys {
            #expect(key.allSatisfy(Self.unreserved.contains) || key.contains("/"), "unsafe character in \(key)")
            #expect(
                key.split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
                    $0.allSatisfy(Self.unreserved.contains)
                })
        }
        let noteIDs = recordKeys.filter { $0.hasPrefix("DAOKit/FixtureNoteEntity/") }
            .map { String($0.dropFirst("DAOKit/FixtureNoteEntity/".count)).removingPercentEncoding }
        #expect(Set(noteIDs.compactMap { $0 }) == Set(ids))
    }

    @Test func theLongestAwkwardIDStillFitsOneKey() throws {
        let store = InMemoryKeyValueStore()
        let id = String(repeating: "long", count: 125)
        try KeyValueStorageContext(store: store).save([FixtureNoteEntity(id: id, body: "")])
        #expect(store.contents["DAOKit/FixtureNoteEntity/" + id] != nil)
    }

    @Test func equivalentUnicodeSpellingsShareOneKeyInNormalizationFormC() throws {
        let store = InMemoryKeyValueStore()
        try KeyValueStorageContext(store: store).save([FixtureNoteEntity(id: "e\u{301}", body: "")])
        #expect(store.contents["DAOKit/FixtureNoteEntity/%C3%A9"] != nil)
    }

    @Test func listingTheStoreRecoversIDsWithQuotesAndControlCharacters() throws {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        let ids = ["plain", "quote\"d", "back\\slash", "line\nbreak", "\u{1}", "tab\t", "\r", "ünï", "\u{7F}"]
        for id in ids { try context.save([FixtureNoteEntity(id: id, body: "")]) }
        #expect(Set(try context.fetchAll(FixtureNoteEntity.self).map(\.id)) == Set(ids))
        try context.delete(FixtureNoteEntity.self, ids: ["quote\"d", "\u{1}"])
        #expect(
            Set(try context.fetchAll(FixtureNoteEntity.self).map(\.id)) == Set(ids).subtracting(["quote\"d", "\u{1}"]))
        #expect(store.contents.count == ids.count - 2)
    }

    @Test func keysUnderThePrefixThatTheSchemeCannotProduceAreNotRecords() throws {
        let store = InMemoryKeyValueStore([
            "DAOKit/FixtureNoteEntity/good": #"{"body":"mine","id":"good"}"#,
            "DAOKit/FixtureNoteEntity/a/b": #"{"body":"deeper","id":"a/b"}"#,
            "DAOKit/FixtureNoteEntity/%c3%a9": #"{"body":"lower-case escape","id":"é"}"#,
            "DAOKit/FixtureNoteEntity/e%CC%81": #"{"body":"not NFC","id":"é"}"#,
            "DAOKit/FixtureNoteEntity/%41": #"{"body":"needless escape","id":"A"}"#,
            "DAOKit/FixtureNoteEntity/ü": #"{"body":"unescaped","id":"ü"}"#,
        ])
        let context = KeyValueStorageContext(store: store)
        #expect(try context.count(FixtureNoteEntity.self) == 1)
        #expect(try context.fetchAll(FixtureNoteEntity.self).map(\.body) == ["mine"])
        try context.deleteAll(FixtureNoteEntity.self)
        #expect(store.contents.count == 5)
    }

    @Test func anIndexAnEarlierVersionWroteIsIgnoredAndRemovedWithTheType() throws {
        // Earlier versions listed a type's keys under `namespace/entityName`; the store's keys
        // are the listing now, so a record the old index missed is stored all the same.
        let store = InMemoryKeyValueStore([
            "DAOKit/FixtureNoteEntity": #"["a"]"#,
            "DAOKit/FixtureNoteEntity/a": #"{"body":"listed","id":"a"}"#,
            "DAOKit/FixtureNoteEntity/b": #"{"body":"unlisted","id":"b"}"#,
        ])
        let context = KeyValueStorageContext(store: store)
        #expect(try context.fetchAll(FixtureNoteEntity.self).map(\.body) == ["listed", "unlisted"])
        try context.save([FixtureNoteEntity(id: "c", body: "new")])
        #expect(store.contents["DAOKit/FixtureNoteEntity"] == #"["a"]"#)
        try context.deleteAll(FixtureNoteEntity.self)
        #expect(store.contents.isEmpty)
    }
}
