import DAOKit
import DAOKitTesting
import Foundation
import Testing

/// Domain → Entity is strict, Entity → Domain lenient, and nothing is written when mapping fails.
@Suite("BaseDao mapping")
struct BaseDaoMappingTests {
    let context = InMemoryStorageContext()

    @Test func aDomainFieldTheEntityDoesNotStoreIsAMappingErrorAtPersist() throws {
        let dao = BaseDao<DraftMessage, FixtureNoteEntity>(context: context)
        let error = try #require(throws: MappingError.self) {
            try dao.persist(DraftMessage(id: "1", body: "text", draft: "unsaved"))
        }
        #expect(error.kind == .unmappedKey)
        #expect(error.path == "draft")
        #expect(try context.count(FixtureNoteEntity.self) == 0)
    }

    @Test func strictMappingAppliesToCreateUpdateAndBatches() throws {
        let dao = BaseDao<DraftMessage, FixtureNoteEntity>(context: context)
        try context.save([FixtureNoteEntity(id: "1", body: "stored")])
        let value = DraftMessage(id: "1", body: "changed", draft: "unsaved")
        #expect(throws: MappingError.self) { try dao.create(DraftMessage(id: "2", body: "", draft: "x")) }
        #expect(throws: MappingError.self) { try dao.update(value) }
        let error = try #require(throws: MappingError.self) {
            try dao.persist([DraftMessage(id: "3", body: "", draft: ""), value])
        }
        #expect(error.path.hasPrefix("[0]"))
        #expect(try context.fetchAll(FixtureNoteEntity.self) == [FixtureNoteEntity(id: "1", body: "stored")])
    }

    @Test func strictnessDoesNotDependOnTheInjectedMapper() throws {
        let dao = BaseDao<DraftMessage, FixtureNoteEntity>(context: context, mapper: EntityMapper())
        #expect(throws: MappingError.self) { try dao.persist(DraftMessage(id: "1", body: "", draft: "x")) }
    }

    @Test func aValueOutOfTheEntitysRangeIsAMappingErrorNamingItsPositionInTheBatch() throws {
        let dao = BaseDao<FixtureGauge, FixtureGaugeEntity>(context: context)
        let error = try #require(throws: MappingError.self) {
            try dao.persist([FixtureGauge(id: 1, level: 1), FixtureGauge(id: 2, level: 1_000)])
        }
        #expect(error.path == "[1].level")
        #expect(error.description.hasPrefix("Cannot map Array<FixtureGauge> to Array<FixtureGaugeEntity>:"))
        #expect(try dao.count() == 0)
    }

    @Test func anEntityMayCarryStorageOnlyFields() throws {
        let dao = BaseDao<Title, FixtureNoteEntity>(context: context)
        try context.save([FixtureNoteEntity(id: "1", body: "storage only")])
        #expect(try dao.read(id: "1") == Title(id: "1"))
        #expect(try dao.read() == [Title(id: "1")])
    }

    @Test func aStrictInjectedMapperMakesReadsStrictToo() throws {
        let dao = BaseDao<Title, FixtureNoteEntity>(context: context, mapper: EntityMapper(strict: true))
        try context.save([FixtureNoteEntity(id: "1", body: "storage only")])
        let error = try #require(throws: MappingError.self) { try dao.read(id: "1") }
        #expect(error.kind == .unmappedKey)
        #expect(dao.strictMapper.isStrict)
    }

    @Test func anEntityMissingADomainFieldIsAMappingErrorOnRead() throws {
        let dao = BaseDao<DraftMessage, FixtureNoteEntity>(context: context)
        try context.save([FixtureNoteEntity(id: "1", body: "no draft field")])
        #expect(throws: (any Error).self) { try dao.read(id: "1") }
        #expect(throws: (any Error).self) { try dao.read() }
        #expect(throws: (any Error).self) { try dao.count(where: #Predicate { $0.body.isEmpty }) }
    }
}

/// A domain value with a field its entity (FixtureNoteEntity) does not store.
private struct DraftMessage: Codable, Identifiable, Equatable {
    var id: String
    var body: String
    var draft: String
}

/// A domain value that reads only part of its entity (FixtureNoteEntity).
private struct Title: Codable, Identifiable, Equatable {
    var id: String
}
