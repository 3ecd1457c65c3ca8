import DAOKit
import DAOKitTesting
import Foundation
import Testing

/// The store keys and index format of KeyValueStorageContext, seen from the store.
@Suite("KeyValueStorageContext layout")
struct KeyValueLayoutTests {
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~%")

    @Test func everyAwkwardIDGetsItsOwnSafeReversibleKey() throws {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        let ids = StorageContextContract.awkwardIDs
        try context.save(ids.map { FixtureNoteEntity(id: $0, body: "") })
        try context.save(ids.map { FixtureTagEntity(id: $0, label: "") })
        let recordKeys = store.contents.keys.filter { $0.split(separator: "/", omittingEmptySubsequences: false).count == 3 }
        #expect(recordKeys.count == ids.count * 2)
        #expect(store.contents.count == ids.count * 2 + 2)
        for key in recordKeys {
            #expect(key.allSatisfy(Self.unreserved.contains) || key.contains("/"), "unsafe character in \(key)")
            #expect(key.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { $0.allSatisfy(Self.unreserved.contains) })
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

    @Test func theIndexIsAJSONArrayEvenForKeysWithQuotesAndControlCharacters() throws {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        let ids = ["plain", "quote\"d", "back\\slash", "line\nbreak", "\u{1}", "tab\t", "\r", "ünï", "\u{7F}"]
        for id in ids { try context.save([FixtureNoteEntity(id: id, body: "")]) }
        let index = try #require(store.contents["DAOKit/FixtureNoteEntity"])
        #expect(try JSONDecoder().decode([String].self, from: Data(index.utf8)) == ids)
        #expect(index.hasPrefix(#"["plain","quote\"d","back\\slash","line\nbreak","\u0001","tab\t","\r","#))
        try context.delete(FixtureNoteEntity.self, ids: ["quote\"d", "\u{1}"])
        let shrunk = try #require(store.contents["DAOKit/FixtureNoteEntity"])
        #expect(try JSONDecoder().decode([String].self, from: Data(shrunk.utf8)) == ids.filter { $0 != "quote\"d" && $0 != "\u{1}" })
    }

    @Test func anIndexWrittenByAnotherToolIsRead() throws {
        // Any valid JSON array works, not only the compact text the context writes.
        let store = InMemoryKeyValueStore([
            "DAOKit/FixtureNoteEntity": "[ \"a\" ,\n \"b\\u0041\" ]",
            "DAOKit/FixtureNoteEntity/a": #"{"id": "a", "body": "first"}"#,
            "DAOKit/FixtureNoteEntity/bA": #"{"body":"second","id":"bA"}"#,
        ])
        let context = KeyValueStorageContext(store: store)
        #expect(try context.fetchAll(FixtureNoteEntity.self).map(\.body) == ["first", "second"])
        try context.save([FixtureNoteEntity(id: "c", body: "third")])
        #expect(store.contents["DAOKit/FixtureNoteEntity"] == #"["a","bA","c"]"#)
    }
}
