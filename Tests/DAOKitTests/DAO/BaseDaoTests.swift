import DAOKit
import DAOKitTesting
import Foundation
import Testing

@Suite("BaseDao")
struct BaseDaoTests {
    let context = InMemoryStorageContext()
    var dao: BaseDao<FixtureMessage, FixtureMessageEntity> { BaseDao(context: context) }

    @Test func persistThenReadByIDReturnsTheSameValue() throws {
        let message = FixtureMessage(text: "hello")
        try dao.persist(message)
        #expect(try dao.read(id: message.id) == message)
        #expect(try dao.read(id: UUID()) == nil)
    }

    @Test func persistReplacesAValueWithTheSameID() throws {
        var message = FixtureMessage(text: "draft")
        try dao.persist(message)
        message.text = "final"
        try dao.persist(message)
        #expect(try dao.read() == [message])
    }

    @Test func aPersistedBatchKeepsTheLastValueOfARepeatedID() throws {
        let first = FixtureMessage(text: "first")
        var second = first
        second.text = "second"
        try dao.persist([first, FixtureMessage(text: "other"), second])
        #expect(try dao.count() == 2)
        #expect(try dao.read(id: first.id)?.text == "second")
    }

    @Test func anEmptyBatchChangesNothing() throws {
        try dao.persist([FixtureMessage]())
        #expect(try dao.count() == 0)
    }

    @Test func createInsertsANewValue() throws {
        let message = FixtureMessage(text: "new")
        try dao.create(message)
        #expect(try dao.read() == [message])
    }

    @Test func createOfAStoredIDIsADuplicateIDErrorNamingEntityAndKey() throws {
        let message = FixtureMessage(text: "original")
        try dao.create(message)
        let error = try #require(throws: StorageError.self) { try dao.create(message) }
        #expect(error.kind == .duplicateID)
        #expect(error.entityName == "FixtureMessageEntity")
        #expect(error.key == message.id.uuidString)
        #expect(
            error.description
                == "FixtureMessageEntity \"\(message.id.uuidString)\": an entity with this id already exists")
    }

    @Test func updateReplacesAStoredValue() throws {
        var message = FixtureMessage(text: "before")
        try dao.create(message)
        message.isRead = true
        try dao.update(message)
        #expect(try dao.read(id: message.id)?.isRead == true)
    }

    @Test func updateOfAMissingIDIsAMissingIDErrorAndStoresNothing() throws {
        let message = FixtureMessage(text: "nowhere")
        let error = try #require(throws: StorageError.self) { try dao.update(message) }
        #expect(error.kind == .missingID)
        #expect(error.key == message.id.uuidString)
        #expect(error.description.hasSuffix("no entity with this id exists"))
        #expect(try dao.count() == 0)
    }

    @Test func eraseByIDRemovesOneValueAndIgnoresUnknownIDs() throws {
        let messages = FixtureMessage.samples(3)
        try dao.persist(messages)
        try dao.erase(id: messages[1].id)
        try dao.erase(id: UUID())
        #expect(Set(try dao.read().map(\.id)) == [messages[0].id, messages[2].id])
    }

    @Test func eraseByIDsRemovesThoseValues() throws {
        let messages = FixtureMessage.samples(4)
        try dao.persist(messages)
        try dao.erase(ids: [messages[0].id, messages[3].id, UUID()])
        #expect(Set(try dao.read().map(\.id)) == [messages[1].id, messages[2].id])
        try dao.erase(ids: [])
        #expect(try dao.count() == 2)
    }

    @Test func eraseWhereRemovesOnlyMatchingValues() throws {
        let messages = FixtureMessage.samples(9)
        try dao.persist(messages)
        try dao.erase(where: #Predicate { $0.author == "bob" })
        #expect(try dao.read().allSatisfy { $0.author == "ann" })
        #expect(try dao.count() == 5)
    }

    @Test func eraseRemovesEverythingOfTheDomainTypeOnly() throws {
        try dao.persist(FixtureMessage.samples(3))
        let dialogs = BaseDao<FixtureDialog, FixtureDialogEntity>(context: context)
        try dialogs.persist(FixtureDialog(id: "d", title: "kept", messages: []))
        try dao.erase()
        #expect(try dao.count() == 0)
        #expect(try dialogs.count() == 1)
    }

    @Test func countWhereCountsMatchingValues() throws {
        try dao.persist(FixtureMessage.samples(10))
        #expect(try dao.count(where: #Predicate { $0.isRead }) == 4)
        #expect(try dao.count(where: #Predicate { $0.priority == 7 }) == 0)
    }

    @Test func anErrorFromTheContextReachesTheCaller() throws {
        let store = ScriptedKeyValueStore()
        let failing = BaseDao<FixtureMessage, FixtureMessageEntity>(context: KeyValueStorageContext(store: store))
        store.failsReading = { _ in true }
        #expect(throws: StorageError.self) { try failing.read() }
        #expect(throws: StorageError.self) { try failing.read(id: UUID()) }
        #expect(throws: StorageError.self) { try failing.count() }
        #expect(throws: StorageError.self) { try failing.count(where: #Predicate { $0.isRead }) }
        #expect(throws: StorageError.self) { try failing.erase(where: #Predicate { $0.isRead }) }
        #expect(throws: StorageError.self) { try failing.erase() }
        #expect(throws: StorageError.self) { try failing.persist(FixtureMessage()) }
        #expect(store.values.isEmpty)
    }

    @Test func aSubclassAddsQueriesOnTopOfThePublicAPI() throws {
        let messages = MessageDao(context: context)
        let all = FixtureMessage.samples(6)
        try messages.persist(all)
        #expect(try messages.unread(in: "general").map(\.text) == ["message 5", "message 4", "message 2", "message 1"])
    }
}

/// An app's DAO: its own queries, built from BaseDao's public methods.
private final class MessageDao: BaseDao<FixtureMessage, FixtureMessageEntity>, @unchecked Sendable {
    func unread(in dialogID: String) throws -> [FixtureMessage] {
        try read(
            where: #Predicate { $0.dialogID == dialogID && !$0.isRead },
            sortedBy: [SortDescriptor(\.date, order: .reverse)])
    }
}
