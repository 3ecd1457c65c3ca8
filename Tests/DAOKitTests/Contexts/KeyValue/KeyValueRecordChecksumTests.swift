import DAOKitTesting
import Foundation
import Testing

@testable import DAOKit

/// Every key-value record carries a CRC-32C of its place and bytes: a record whose bytes changed —
/// a flipped byte, a truncation, a damaged checksum, a copy under another key — is a
/// `corruptRecord` naming it on every read, never a value; records of earlier releases (the bare
/// entity) still read, and their next write seals them.
@Suite("Key-value record checksums")
struct KeyValueRecordChecksumTests {
    let notes = [FixtureNoteEntity(id: "a", body: "alpha 1234"), FixtureNoteEntity(id: "b", body: "beta")]
    let storeKey = "DAOKit/FixtureNoteEntity/a"

    private func store() throws -> (InMemoryKeyValueStore, KeyValueStorageContext) {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save(notes)
        return (store, context)
    }

    /// Replaces the stored text of "a" and checks that every read reports it, by key and store
    /// key, while "b" reads; returns the error `fetch` threw.
    @discardableResult
    private func expectReported(
        _ text: String, in store: InMemoryKeyValueStore, _ context: KeyValueStorageContext,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> StorageError? {
        store.setString(text, forKey: storeKey)
        let error = #expect(throws: StorageError.self, sourceLocation: sourceLocation) {
            try context.fetch(FixtureNoteEntity.self, id: "a")
        }
        #expect(error?.key == "a", sourceLocation: sourceLocation)
        #expect(error?.location == storeKey, sourceLocation: sourceLocation)
        let readable = try context.fetchReadable(FixtureNoteEntity.self)
        #expect(readable.values == [notes[1]], sourceLocation: sourceLocation)
        #expect(readable.failures.map(\.storageKey) == ["a"], sourceLocation: sourceLocation)
        #expect(throws: StorageError.self, sourceLocation: sourceLocation) {
            try context.fetchAll(FixtureNoteEntity.self)
        }
        return error
    }

    @Test func recordsBeginWithTheirChecksumBeforeTheEntity() throws {
        let (store, _) = try store()
        let text = try #require(store.string(forKey: storeKey))
        #expect(text.hasPrefix(#"{"daokit_crc32c":""#))
        #expect(text.dropFirst(KeyValueRecordFormat.sealLength) == #""entity":{"body":"alpha 1234","id":"a"}}"#)
        // Still JSON, for other tools.
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect((object["entity"] as? [String: Any])?["body"] as? String == "alpha 1234")
    }

    @Test func aChangedDigitThatStillParsesIsACorruptRecord() throws {
        let (store, context) = try store()
        let text = try #require(store.string(forKey: storeKey))
        let error = try expectReported(text.replacingOccurrences(of: "1234", with: "1235"), in: store, context)
        #expect(error?.kind == .corruptRecord(KeyValueRecordFormat.checksumMismatch))
        // A rewrite seals it again.
        try context.save([notes[0]])
        #expect(try context.fetch(FixtureNoteEntity.self, id: "a") == notes[0])
    }

    @Test func everyFlippedBitIsReportedNeverRead() throws {
        let (store, context) = try store()
        let bytes = Array(try #require(store.string(forKey: storeKey)).utf8)
        var reported = 0
        for position in bytes.indices {
            for bit in 0..<7 {  // the eighth would make the text invalid UTF-8, which a String cannot hold
                var damaged = bytes
                damaged[position] ^= UInt8(1) << UInt8(bit)
                store.setString(String(decoding: damaged, as: UTF8.self), forKey: storeKey)
                do {
                    let value = try context.fetch(FixtureNoteEntity.self, id: "a")
                    Issue.record("byte \(position) bit \(bit): read \(String(describing: value))")
                } catch let error as StorageError {
                    #expect(error.key == "a")
                    reported += 1
                }
            }
        }
        #expect(reported == bytes.count * 7)
    }

    @Test func everyTruncationIsReportedNeverRead() throws {
        let (store, context) = try store()
        let text = try #require(store.string(forKey: storeKey))
        for length in 0..<text.utf8.count {
            let error = try expectReported(
                String(decoding: text.utf8.prefix(length), as: UTF8.self), in: store, context)
            guard case .corruptRecord? = error?.kind else {
                Issue.record("a truncation to \(length) bytes: \(String(describing: error))")
                continue
            }
        }
    }

    @Test func aDamagedChecksumIsReported() throws {
        let (store, context) = try store()
        let text = try #require(store.string(forKey: storeKey))
        let position = text.index(text.startIndex, offsetBy: KeyValueRecordFormat.sealLength - 3)
        let digit = text[position]
        // Another hex digit: the bytes no longer match; a letter that is not hex: the field is damaged.
        let other = String(text[..<position]) + (digit == "0" ? "1" : "0") + text[text.index(after: position)...]
        #expect(
            try expectReported(other, in: store, context)?.kind
                == .corruptRecord(KeyValueRecordFormat.checksumMismatch))
        let notHex = String(text[..<position]) + "g" + text[text.index(after: position)...]
        #expect(try expectReported(notHex, in: store, context)?.kind == .corruptRecord(KeyValueRecordFormat.brokenSeal))
        // The marker damaged in one byte is damage, not a record of an earlier release.
        let marker = text.replacingOccurrences(of: "daokit_crc32c", with: "daokit_crc32C")
        #expect(try expectReported(marker, in: store, context)?.kind == .corruptRecord(KeyValueRecordFormat.brokenSeal))
    }

    @Test func aRecordCopiedUnderAnotherKeyIsReported() throws {
        let (store, context) = try store()
        // "b"'s record, sound in itself, copied under "a": the checksum covers the record's place.
        let error = try expectReported(
            try #require(store.string(forKey: "DAOKit/FixtureNoteEntity/b")), in: store, context)
        #expect(error?.kind == .corruptRecord(KeyValueRecordFormat.checksumMismatch))
    }

    @Test func aRecordOfAnEarlierReleaseReadsUncheckedAndIsSealedByItsNextWrite() throws {
        let (store, context) = try store()
        store.setString(#"{"body":"old","id":"a"}"#, forKey: storeKey)
        #expect(try context.fetch(FixtureNoteEntity.self, id: "a") == FixtureNoteEntity(id: "a", body: "old"))
        #expect(try context.fetchAll(FixtureNoteEntity.self).count == 2)
        try context.save([FixtureNoteEntity(id: "a", body: "new")])
        #expect(try #require(store.string(forKey: storeKey)).hasPrefix(#"{"daokit_crc32c":""#))
        #expect(try context.fetch(FixtureNoteEntity.self, id: "a") == FixtureNoteEntity(id: "a", body: "new"))
    }

    @Test func anotherNamespaceReadsACopiedStore() throws {
        // The checksum covers the entity and key, not the namespace: a store copied under
        // another namespace reads.
        let (store, _) = try store()
        let copy = InMemoryKeyValueStore()
        for key in store.keys(withPrefix: "DAOKit/") {
            copy.setString(try #require(store.string(forKey: key)), forKey: "Other" + key.dropFirst("DAOKit".count))
        }
        let context = KeyValueStorageContext(store: copy, namespace: "Other")
        #expect(try context.fetchAll(FixtureNoteEntity.self) == notes)
    }
}
