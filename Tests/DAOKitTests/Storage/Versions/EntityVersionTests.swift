import DAOKitFileStore
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit

/// The contexts that keep encoded records, so that a record outlives the code that wrote it.
/// (The in-memory context keeps values; PostgreSQL's versions are tested in its package.)
private let encodedRecordContexts: [ContextFactory] = [
    .keyValueInMemory, .keyValueUserDefaults, .fileJSON, .filePropertyList, .sqliteFile,
]

/// Expects `body` to throw a ``StorageError`` with `code`.
private func expectFailure<T>(
    _ code: StorageError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> T
) {
    #expect(sourceLocation: sourceLocation) {
        _ = try body()
    } throws: { error in
        (error as? StorageError)?.code == code
    }
}

@Suite("Records written by an older version read as the current entity")
struct OlderRecordsResolveTests {
    @Test(arguments: encodedRecordContexts)
    func versionOneRecordsReadThroughEveryStep(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        try context.save([
            TicketV1(id: "a", title: "First", note: "old note", count: 3),
            TicketV1(id: "b", title: "Second", note: "", count: -2),
        ])
        let a = TicketV3(id: "a", title: "First", remark: "old note", count: 3, points: 7)
        let b = TicketV3(id: "b", title: "Second", remark: "", count: -2, points: 7)
        #expect(try context.fetch(TicketV3.self, id: "a") == a)
        #expect(try context.fetchAll(TicketV3.self).sorted { $0.id < $1.id } == [a, b])
        let readable = try context.fetchReadable(TicketV3.self)
        #expect(readable.isComplete)
        #expect(readable.values.sorted { $0.id < $1.id } == [a, b])
        // And through version 2 alone.
        #expect(
            try context.fetch(TicketV2.self, id: "a")
                == TicketV2(id: "a", title: "First", note: "old note", count: 3, points: 7))
    }

    @Test(arguments: encodedRecordContexts)
    func versionTwoRecordsTakeOnlyTheLaterStep(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([TicketV2(id: "a", title: "T", note: "kept", count: 2.5, points: 40)])
        #expect(
            try fresh.context.fetch(TicketV3.self, id: "a")
                == TicketV3(id: "a", title: "T", remark: "kept", count: 2.5, points: 40))
    }

    @Test(arguments: encodedRecordContexts)
    func currentRecordsRoundTripAndMixWithOlderOnes(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([TicketV1(id: "old", title: "O", note: "n", count: 1)])
        let current = TicketV3(id: "new", title: "N", remark: "r", count: 0.5, points: 1)
        try fresh.context.save([current])
        #expect(try fresh.context.fetch(TicketV3.self, id: "new") == current)
        #expect(try fresh.context.fetchAll(TicketV3.self).map(\.id).sorted() == ["new", "old"])
    }

    @Test(arguments: encodedRecordContexts)
    func optionalFieldsReadTheirDefaultsIncludingNil(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([TicketV1(id: "a", title: "T", note: "n", count: 1)])
        #expect(
            try fresh.context.fetch(TicketOptionalDefault.self, id: "a")
                == TicketOptionalDefault(id: "a", title: "T", due: 5, label: nil))
    }

    @Test(arguments: encodedRecordContexts)
    func aFieldRemovedAndAddedBackReadsItsDefaultNotTheOldValue(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([TicketV1(id: "a", title: "T", note: "an old note", count: 1)])
        try fresh.context.save([TicketNoteAddedBack(id: "b", title: "U", note: 5)])
        #expect(
            try fresh.context.fetch(TicketNoteAddedBack.self, id: "a")
                == TicketNoteAddedBack(id: "a", title: "T", note: 0))
        #expect(
            try fresh.context.fetchAll(TicketNoteAddedBack.self).sorted { $0.id < $1.id } == [
                TicketNoteAddedBack(id: "a", title: "T", note: 0), TicketNoteAddedBack(id: "b", title: "U", note: 5),
            ])
    }

    @Test(arguments: encodedRecordContexts)
    func aRecordThatDoesNotFitItsVersionStillFailsToDecode(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([TicketWithoutCount(id: "a", title: "T", note: "n")])
        expectFailure(.decodingFailed) { try fresh.context.fetch(TicketV3.self, id: "a") }
    }
}

@Suite("A record written by a newer version is never read wrong nor overwritten")
struct NewerRecordsTests {
    @Test(arguments: encodedRecordContexts)
    func aNewerRecordIsUnreadableBesideTheOthers(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([TicketV1(id: "old", title: "O", note: "n", count: 1)])
        try fresh.context.save([TicketV3(id: "new", title: "N", remark: "r", count: 0.5, points: 1)])
        let error = try #require(throws: StorageError.self) { try fresh.context.fetch(TicketV2.self, id: "new") }
        #expect(error.kind == .newerVersion("written by version 3; this build reads up to 2"))
        #expect(error.key == "new")
        #expect(error.entityName == "Ticket")
        #expect(error.description.contains("written by version 3; this build reads up to 2"))
        let readable = try fresh.context.fetchReadable(TicketV2.self)
        #expect(readable.values.map(\.id) == ["old"])
        #expect(readable.failures.map(\.storageKey) == ["new"])
        #expect(readable.failures.first?.error.code == .newerVersion)
        expectFailure(.newerVersion) { try fresh.context.fetchAll(TicketV2.self) }
    }

    @Test(arguments: encodedRecordContexts)
    func anEntityThatDeclaresNothingRefusesVersionedRecords(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([TicketV2(id: "a", title: "T", note: "n", count: 1, points: 2)])
        let error = try #require(throws: StorageError.self) { try fresh.context.fetch(TicketV1.self, id: "a") }
        #expect(error.kind == .newerVersion("written by version 2; this build reads up to 1"))
    }

    @Test(arguments: encodedRecordContexts)
    func savingOverANewerRecordFailsAndWritesNothing(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let newer = TicketV3(id: "a", title: "N", remark: "r", count: 0.5, points: 1)
        try fresh.context.save([newer])
        let error = try #require(throws: StorageError.self) {
            try fresh.context.save([
                TicketV2(id: "fresh", title: "F", note: "", count: 0, points: 0),
                TicketV2(id: "a", title: "blind", note: "", count: 0, points: 0),
            ])
        }
        #expect(error.code == .newerVersion)
        #expect(error.key == "a")
        #expect(error.kind.detail?.contains("written by version 3; this build writes version 2") == true)
        #expect(try fresh.context.fetch(TicketV3.self, id: "a") == newer)
        #expect(try fresh.context.fetch(TicketV2.self, id: "fresh") == nil)
        // The update mode refuses it too, and an entity that declares nothing; deleting is allowed.
        expectFailure(.newerVersion) {
            try fresh.context.save([TicketV1(id: "a", title: "b", note: "", count: 0)], mode: .update)
        }
        try fresh.context.delete(TicketV2.self, ids: ["a"])
        #expect(try fresh.context.fetch(TicketV3.self, id: "a") == nil)
    }

    @Test(arguments: encodedRecordContexts)
    func aTransactionThatRemovesANewerRecordMayWriteInItsPlace(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = try #require(fresh.context as? any TransactionalStorageContext)
        try context.save([
            TicketV3(id: "a", title: "N", remark: "r", count: 0.5, points: 1),
            TicketV3(id: "b", title: "N", remark: "r", count: 0.5, points: 1),
        ])
        try writeInPlace(on: context)
        #expect(
            try context.fetch(TicketV2.self, id: "a") == TicketV2(id: "a", title: "one", note: "", count: 0, points: 0))
        #expect(
            try context.fetch(TicketV2.self, id: "b") == TicketV2(id: "b", title: "all", note: "", count: 0, points: 0))
    }

    /// Removes "a" and writes it again, then removes every ticket and writes "b", as version 2.
    private func writeInPlace<C: TransactionalStorageContext>(on context: C) throws {
        try context.transaction { tx in
            try tx.delete(TicketV3.self, ids: ["a"])
            try tx.save([TicketV2(id: "a", title: "one", note: "", count: 0, points: 0)])
        }
        try context.transaction { tx in
            let kept = try tx.fetch(TicketV2.self, id: "a")
            try tx.deleteAll(TicketV3.self)
            try tx.save([TicketV2(id: "b", title: "all", note: "", count: 0, points: 0)] + (kept.map { [$0] } ?? []))
        }
    }

    @Test(arguments: encodedRecordContexts)
    func aVersionDeclaredReadableByOlderCodeIsReadByIt(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([
            TicketV4(id: "a", title: "T", remark: "r", count: 1, points: 2, owner: "kim")
        ])
        #expect(
            try fresh.context.fetch(TicketV3.self, id: "a")
                == TicketV3(id: "a", title: "T", remark: "r", count: 1, points: 2))
        // Not by code older than it declares.
        expectFailure(.newerVersion) { try fresh.context.fetch(TicketV2.self, id: "a") }
        // Still, version 3 does not replace what version 4 wrote.
        expectFailure(.newerVersion) {
            try fresh.context.save([TicketV3(id: "a", title: "T", remark: "r", count: 1, points: 2)])
        }
    }
}

@Suite("An entity schema that cannot be right fails its first use, naming the field")
struct InvalidEntitySchemaTests {
    @Test(arguments: encodedRecordContexts)
    func aDefaultOfAnotherTypeFailsReadsAndWrites(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let error = try #require(throws: StorageError.self) {
            try fresh.context.save([TicketWrongDefault(id: "a", points: 1)])
        }
        #expect(error.code == .invalidSchema)
        #expect(error.entityName == "Ticket")
        #expect(
            error.kind.detail
                == "the default declared for `points` is a String, but Ticket decodes `points` as Int")
        expectFailure(.invalidSchema) { try fresh.context.fetch(TicketWrongDefault.self, id: "a") }
        expectFailure(.invalidSchema) { try fresh.context.fetchAll(TicketWrongDefault.self) }
        #expect(try fresh.context.count(TicketV1.self) == 0)
    }

    @Test func aRenameToAFieldTheEntityDoesNotDecodeIsNamed() throws {
        let context = KeyValueStorageContext(store: InMemoryKeyValueStore())
        let error = try #require(throws: StorageError.self) { try context.fetchAll(TicketRenameToNothing.self) }
        #expect(error.code == .invalidSchema)
        #expect(error.kind.detail?.hasPrefix("`remarks` is declared as added or renamed") == true)
    }

    @Test func aStepBeyondTheVersionIsRefused() throws {
        let context = KeyValueStorageContext(store: InMemoryKeyValueStore())
        let error = try #require(throws: StorageError.self) { try context.fetchAll(TicketStepBeyondVersion.self) }
        #expect(error.kind == .invalidSchema("a step declares version 3, but the versions with changes are 2 to 2"))
    }

    @Test func aFieldChangedTwiceInOneStepIsRefused() throws {
        let context = KeyValueStorageContext(store: InMemoryKeyValueStore())
        let error = try #require(throws: StorageError.self) { try context.fetchAll(TicketTwiceInOneStep.self) }
        #expect(error.kind == .invalidSchema("`points` is changed twice in version 2; declare one change per field"))
    }

    @Test func versionsOutOfRangeAreRefused() throws {
        struct Zero: Storable {
            var id: String
            static let schema = EntitySchema(version: 0)
        }
        struct ReadableFromTheFuture: Storable {
            var id: String
            static let schema = EntitySchema(version: 2, readableFrom: 3)
        }
        let context = KeyValueStorageContext(store: InMemoryKeyValueStore())
        expectFailure(.invalidSchema) { try context.save([Zero(id: "a")]) }
        expectFailure(.invalidSchema) { try context.save([ReadableFromTheFuture(id: "a")]) }
        #expect(try context.count(Zero.self) == 0)
    }
}

@Suite("An entity that declares no version stores its records as before")
struct UnversionedRecordLayoutTests {
    @Test func keyValueRecordsOfVersionOneCarryNoStamp() throws {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([TicketV1(id: "a", title: "T", note: "n", count: 1)])
        try context.save([TicketV2(id: "b", title: "T", note: "n", count: 1, points: 2)])
        try context.save([TicketV4(id: "c", title: "T", remark: "r", count: 1, points: 2, owner: nil)])
        func body(_ key: String) -> Substring? {
            store.string(forKey: "DAOKit/Ticket/" + key)?.dropFirst(KeyValueRecordFormat.sealLength)
        }
        #expect(body("a") == #""entity":{"count":1,"id":"a","note":"n","title":"T"}}"#)
        #expect(body("b") == #""daokit_version":2,"entity":{"count":1,"id":"b","note":"n","points":2,"title":"T"}}"#)
        #expect(body("c")?.hasPrefix(#""daokit_version":4,"daokit_readable_from":3,"entity":{"#) == true)
    }

    @Test func aChangedVersionBreaksTheRecordsChecksum() throws {
        let store = InMemoryKeyValueStore()
        let context = KeyValueStorageContext(store: store)
        try context.save([TicketV3(id: "a", title: "T", remark: "r", count: 1, points: 2)])
        let text = try #require(store.string(forKey: "DAOKit/Ticket/a"))
        store.setString(
            text.replacingOccurrences(of: #""daokit_version":3"#, with: #""daokit_version":1"#),
            forKey: "DAOKit/Ticket/a")
        let error = try #require(throws: StorageError.self) { try context.fetch(TicketV3.self, id: "a") }
        #expect(error.code == .corruptRecord)
        #expect(error.kind.detail == KeyValueRecordFormat.checksumMismatch)
        // A save replaces a damaged record, as it always did.
        try context.save([TicketV3(id: "a", title: "T", remark: "r", count: 1, points: 3)])
        #expect(try context.fetch(TicketV3.self, id: "a")?.points == 3)
    }

    @Test func fileRecordsOfVersionOneCarryNoDataVersion() throws {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        let context = try FileStorageContext(directory: directory.url)
        try context.save([TicketV1(id: "a", title: "T", note: "n", count: 1)])
        try context.save([TicketV4(id: "c", title: "T", remark: "r", count: 1, points: 2, owner: nil)])
        let files = try FileManager.default.subpathsOfDirectory(atPath: directory.path).filter {
            $0.hasSuffix(".json")
        }
        let texts = try files.sorted().map { try String(contentsOfFile: directory.path + "/" + $0, encoding: .utf8) }
        #expect(texts.count == 2)
        #expect(texts.filter { $0.contains("dataVersion") }.count == 1)
        #expect(texts.contains { $0.contains(#""dataReadableFrom":3,"dataVersion":4,"entity":"#) })
    }
}

@Suite("Observation delivers older records as the current entity reads them")
struct OlderRecordObservationTests {
    @Test(arguments: encodedRecordContexts)
    func anObservationOfAnAddedFieldSeesOlderRecordsWithTheirDefault(_ factory: ContextFactory) async throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        try context.save([TicketV1(id: "a", title: "Old", note: "n", count: 1)])
        try context.save([TicketV3(id: "b", title: "New", remark: "r", count: 2, points: 3)])
        let tickets = BaseDao<TicketV3, TicketV3>(context: context)
        let recorder = StreamRecorder(tickets.observe(where: #Predicate { $0.points == 7 }))
        defer { recorder.cancel() }
        let a = TicketV3(id: "a", title: "Old", remark: "n", count: 1, points: 7)
        #expect(await recorder.waitUntil { $0.last == [a] }, "\(recorder.elements)")
        // Another version 1 record arrives: the observer gets it resolved, beside the first.
        try context.save([TicketV1(id: "c", title: "Older", note: "m", count: 4)])
        let c = TicketV3(id: "c", title: "Older", remark: "m", count: 4, points: 7)
        #expect(await recorder.waitUntil { Set($0.last?.map(\.id) ?? []) == ["a", "c"] }, "\(recorder.elements)")
        #expect(recorder.elements.last?.sorted { $0.id < $1.id } == [a, c])
    }
}
