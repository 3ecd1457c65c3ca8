// The design document's "Public API contract" (the document is kept outside this repository),
// written the way code outside the repository uses it (no `@testable`): if a name or shape in the
// contract changes, this file stops compiling.
import DAOKit
import DAOKitFileStore
import Foundation
import Testing

@Suite("Public API contract")
struct PublicAPIContractTests {
    struct Message: Codable, Identifiable, Equatable {
        let id: Int
        let text: String
        let isRead: Bool
        let date: Date
    }

    final class MessageEntity: Storable {
        var id = 0
        var text = ""
        var isRead = false
        var date = Date.distantPast
    }

    @Test func theMappingAPIIsAsDesigned() throws {
        let plain = Message(id: 1, text: "t", isRead: false, date: Date(timeIntervalSinceReferenceDate: 1))
        let plains = [plain]
        let mapper = EntityMapper()
        let strict = EntityMapper(strict: true)
        let entity = try mapper.map(plain, to: MessageEntity.self)
        let back = try mapper.map(entity, to: Message.self)
        let many = try strict.map(plains, to: [MessageEntity].self)
        #expect(back == plain && many.count == 1)
        let error: any Error & CustomStringConvertible = MappingError(
            sourceType: "A", targetType: "B", kind: .keyNotFound, codingPath: [])
        #expect(error.description == "Cannot map A to B: key not found at <root>")
        // Codes can grow: a switch over them needs a `default:`, and this one must keep compiling.
        let mismatch = MappingError(
            sourceType: "A", targetType: "B",
            kind: .typeMismatch(expected: "Int", found: "String"), codingPath: [])
        switch mismatch.code {
        case .keyNotFound, .valueNotFound, .unmappedKey, .userError: Issue.record("wrong code")
        case .typeMismatch: #expect(mismatch.kind.expectedType == "Int" && mismatch.kind.found == "String")
        case .numberNotRepresentable, .dataCorrupted: Issue.record("wrong code")
        default: Issue.record("an unknown code")
        }
        #expect(mismatch.kind == .typeMismatch(expected: "Int", found: "String"))
    }

    @Test func theStorageAPIIsAsDesigned() throws {
        func requiresStorageKey<K: StorageKey>(_: K.Type) {}
        requiresStorageKey(String.self)
        requiresStorageKey(Int.self)
        requiresStorageKey(Int64.self)
        requiresStorageKey(UUID.self)
        #expect(MessageEntity.entityName == "MessageEntity")

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("contract-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let suite = "daokit.contract.\(UUID().uuidString)"
        defer { UserDefaults.standard.removePersistentDomain(forName: suite) }
        let contexts: [any StorageContext] = [
            InMemoryStorageContext(),
            KeyValueStorageContext(store: UserDefaults(suiteName: suite)!),
            KeyValueStorageContext(store: InMemoryKeyValueStore()),
            try FileStorageContext(directory: directory),
        ]
        for context in contexts {
            let entity = MessageEntity()
            entity.id = 7
            try context.save([entity])
            #expect(try context.fetch(MessageEntity.self, id: 7)?.id == 7)
            #expect(try context.fetchAll(MessageEntity.self).count == 1)
            #expect(try context.count(MessageEntity.self) == 1)
            try context.delete(MessageEntity.self, ids: [7, 8])
            try context.deleteAll(MessageEntity.self)
            #expect(try context.count(MessageEntity.self) == 0)
        }
        let error: any Error & CustomStringConvertible = StorageError(.missingID, entityName: "E", key: "1")
        #expect(!error.description.isEmpty)
    }

    @Test func theDaoAPIIsAsDesigned() throws {
        let dao = BaseDao<Message, MessageEntity>(context: InMemoryStorageContext(), mapper: EntityMapper())
        let message = Message(id: 1, text: "t", isRead: false, date: Date(timeIntervalSinceReferenceDate: 5))
        try dao.create(message)
        try dao.update(message)
        try dao.persist(message)
        try dao.persist([message])
        #expect(try dao.read(id: 1) == message)
        #expect(try dao.read() == [message])
        #expect(
            try dao.read(
                where: #Predicate<Message> { $0.isRead == false },
                sortedBy: [SortDescriptor(\Message.date, order: .reverse)],
                limit: 10, offset: 0) == [message])
        #expect(try dao.read(where: nil) == [message])
        #expect(try dao.count() == 1)
        #expect(try dao.count(where: #Predicate<Message> { $0.isRead }) == 0)
        try dao.erase(id: 1)
        try dao.erase(ids: [1, 2])
        try dao.erase(where: #Predicate<Message> { $0.isRead })
        try dao.erase()
        #expect(try dao.count() == 0)
    }

    struct IndexedEntity: Storable {
        static let indexes: [StorageIndex] = [StorageIndex("dialogID", "date"), StorageIndex("isRead")]
        var id: Int
        var dialogID: Int
        var date: Date
        var isRead: Bool
    }

    @Test func theQueryAPIIsAsDesigned() throws {
        #expect(MessageEntity.indexes.isEmpty)
        #expect(IndexedEntity.indexes[0].fields == ["dialogID", "date"])
        let filter: StorageFilter = .and([
            .compare("dialogID", .equal, .int(3)),
            .or([.isNull("date"), .not(.compare("date", .less, .date(.distantPast)))]),
            .isIn("id", [.int(1), .int(2)]),
            .hasPrefix("text", "a"), .contains("text", "b"),
        ])
        let query = StorageQuery(filter: filter, sort: [StorageSortKey("date", order: .reverse)], limit: 20, offset: 0)
        let context: any StorageContext = InMemoryStorageContext()
        try context.save([IndexedEntity(id: 1, dialogID: 3, date: .now, isRead: false)])
        #expect(
            try context.fetch(IndexedEntity.self, matching: StorageQuery(filter: .compare("dialogID", .equal, .int(3))))
                .count == 1)
        #expect(try context.count(IndexedEntity.self, matching: .compare("isRead", .equal, .bool(false))) == 1)
        try context.delete(IndexedEntity.self, matching: .compare("isRead", .equal, .bool(false)))
        #expect(try context.count(IndexedEntity.self) == 0)
        #expect(try query.apply(to: [IndexedEntity]()).isEmpty)
        #expect(try !filter.matches(IndexedEntity(id: 5, dialogID: 3, date: .now, isRead: true)))
        #expect(StorageValue(encoding: 3) == .int(3))
        #expect(FieldPath("a.b").keys == ["a", "b"])
    }
}
