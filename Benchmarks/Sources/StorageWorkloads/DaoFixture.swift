import BenchmarkModels
import DAOKit
import Foundation

/// A context filled with messages, a `BaseDao` over it, and every operation the DAO benchmarks time,
/// each written both through the DAO and by hand.
///
/// Generic over the context so that the by-hand code calls the concrete context type, the way an
/// app that does without `BaseDao` would; the DAO holds it as `any StorageContext`.
struct DaoFixture<Context: StorageContext> {
    let messages: [Message]
    let context: Context
    let dao: BaseDao<Message, MessageEntity>
    /// Domain → entity by hand: strict, because `BaseDao` maps that way.
    let toEntity = EntityMapper(strict: true)
    /// Entity → domain by hand: lenient, as `BaseDao`'s default mapper.
    let toDomain = EntityMapper()
    /// Made once, as an app keeps its queries: building a predicate is not what is measured.
    let predicate = BenchmarkedQuery.predicate
    let sortOrder = BenchmarkedQuery.sortOrder
    /// The stored entities, fetched once for the part of `read()` that maps them.
    let fetchedEntities: [MessageEntity]
    /// What the key-value store holds, for the parts of its `fetchAll`; `nil` for other contexts.
    let keyValueRecords: KeyValueRecords?
    /// The messages the query selects, in the order the context returned them: what the query sorts.
    let querySelection: [Message]

    /// Stores `messages` in `context`, mapped by hand.
    init(messages: [Message], context: Context, keyValueStore: InMemoryKeyValueStore?) throws {
        self.messages = messages
        self.context = context
        dao = BaseDao(context: context)
        let toEntity = toEntity
        try context.save(try messages.map { try toEntity.map($0, to: MessageEntity.self) })
        fetchedEntities = try context.fetchAll(MessageEntity.self)
        keyValueRecords = try keyValueStore.map { try KeyValueRecords(store: $0, ids: messages.map(\.id)) }
        querySelection = try toDomain.map(fetchedEntities, to: [Message].self).filter(BenchmarkedQuery.matches)
    }

    // MARK: By hand, the baseline of every ratio

    func persistDirect(_ message: Message) throws {
        try context.save([try toEntity.map(message, to: MessageEntity.self)])
    }

    func persistAllDirect() throws {
        try context.save(try messages.map { try toEntity.map($0, to: MessageEntity.self) })
    }

    func readDirect(id: Int) throws -> Message? {
        try context.fetch(MessageEntity.self, id: id).map { try toDomain.map($0, to: Message.self) }
    }

    func readAllDirect() throws -> [Message] {
        try context.fetchAll(MessageEntity.self).map { try toDomain.map($0, to: Message.self) }
    }

    func queryDirect() throws -> [Message] {
        var result = try readAllDirect().filter(BenchmarkedQuery.matches)
        result.sort(by: BenchmarkedQuery.precedes)
        return result
    }

    func queryDirectWithFoundationQuery() throws -> [Message] {
        var result = try readAllDirect().filter(predicate.evaluate)
        result.sort(using: sortOrder)
        return result
    }

    // MARK: Through the DAO

    func queryThroughDao() throws -> [Message] {
        try dao.read(where: predicate, sortedBy: sortOrder)
    }

    // MARK: Parts of the query

    func filterWithPredicate() throws -> [Message] {
        try messages.filter(predicate.evaluate)
    }

    func filterByHand() -> [Message] {
        messages.filter(BenchmarkedQuery.matches)
    }

    func sortWithSortDescriptor() -> [Message] {
        var result = querySelection
        result.sort(using: sortOrder)
        return result
    }

    func sortByHand() -> [Message] {
        var result = querySelection
        result.sort(by: BenchmarkedQuery.precedes)
        return result
    }

    // MARK: Parts of read()

    func mapFetchedToDomain() throws -> [Message] {
        try toDomain.map(fetchedEntities, to: [Message].self)
    }
}
