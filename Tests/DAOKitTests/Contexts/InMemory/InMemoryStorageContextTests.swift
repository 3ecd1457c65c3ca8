import DAOKit
import DAOKitTesting
import Testing

@Suite("InMemoryStorageContext")
struct InMemoryStorageContextTests {
    @Test func anEntityThatCannotBeCopiedIsAnEncodingFailureAndTheBatchStoresNothing() throws {
        let context = InMemoryStorageContext()
        let batch = [
            Sealed(id: 1, secret: "ok"), Sealed(id: 2, secret: Sealed.unencodable), Sealed(id: 3, secret: "ok"),
        ]
        let error = try #require(throws: StorageError.self) { try context.save(batch) }
        #expect(error.kind == .encodingFailed)
        #expect(error.entityName == "Sealed")
        #expect(error.key == "2")
        #expect(error.location == nil)
        #expect(error.underlyingError != nil)
        #expect(try context.count(Sealed.self) == 0)
    }

    @Test func anotherTypeStoredUnderTheSameEntityNameReadsFieldByField() throws {
        let context = InMemoryStorageContext()
        try context.save([NoteV1(id: "n", body: "text", draft: true)])
        #expect(try context.fetch(NoteV2.self, id: "n") == NoteV2(id: "n", body: "text"))
        #expect(try context.fetchAll(NoteV2.self) == [NoteV2(id: "n", body: "text")])
    }

    @Test func aStoredEntityThatDoesNotFitTheFetchedTypeIsADecodingFailure() throws {
        let context = InMemoryStorageContext()
        try context.save([NoteV2(id: "n", body: "text")])
        let error = try #require(throws: StorageError.self) { try context.fetch(NoteV1.self, id: "n") }
        #expect(error.kind == .decodingFailed)
        #expect(error.entityName == "Note")
        #expect(error.key == "n")
        #expect(error.description.hasPrefix(#"Note "n": the record could not be decoded"#))
        #expect(throws: StorageError.self) { try context.fetchAll(NoteV1.self) }
    }

    @Test func anInsertCheckAndWriteAreAtomicUnderContention() async throws {
        // 8 tasks race to create the same 50 ids: each id must be created exactly once.
        let context = InMemoryStorageContext()
        let created = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    let dao = BaseDao<FixtureGauge, FixtureGaugeEntity>(context: context)
                    var wins = 0
                    for id in 0..<50 where (try? dao.create(FixtureGauge(id: id, level: 0))) != nil { wins += 1 }
                    return wins
                }
            }
            return await group.reduce(0, +)
        }
        #expect(created == 50)
        #expect(try context.count(FixtureGaugeEntity.self) == 50)
    }

    @Test func separateContextsShareNothing() throws {
        let first = InMemoryStorageContext()
        try first.save([FixtureNoteEntity(id: "a", body: "")])
        #expect(try InMemoryStorageContext().count(FixtureNoteEntity.self) == 0)
    }
}

/// An entity whose `encode(to:)` fails for one value, so it cannot be copied.
private struct Sealed: Storable {
    static let unencodable = "cannot be encoded"
    struct Refused: Error {}
    var id: Int
    var secret: String

    func encode(to encoder: any Encoder) throws {
        if secret == Self.unencodable { throw Refused() }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(secret, forKey: .secret)
    }
}

/// Two versions of one stored type, sharing an entity name.
private struct NoteV1: Storable, Equatable {
    static let entityName = "Note"
    var id: String
    var body: String
    var draft: Bool
}

private struct NoteV2: Storable, Equatable {
    static let entityName = "Note"
    var id: String
    var body: String
}
