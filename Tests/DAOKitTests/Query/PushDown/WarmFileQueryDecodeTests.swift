import DAOKit
import DAOKitFileStore
import DAOKitTestSupport
import Foundation
import Testing

/// A warm indexed query on `FileStorageContext` — one after the first in the process — answers
/// from the records the context keeps decoded: counted by the entity's `init(from:)`, it decodes
/// no more records than it returns, plus a small constant. (Issue 8: the file context keeps what it
/// has read decoded, under the same index structures as the memory context.)
@Suite("Warm indexed queries on files decode what they return", .serialized)
struct WarmFileQueryDecodeTests {
    struct Message: Codable, Identifiable, Equatable {
        var id: Int
        var dialog: Int
        var date: Date
        var isRead: Bool
    }

    struct MessageEntity: Storable {
        static let indexes = [StorageIndex("dialog", "date")]
        static let decodes = DecodeCounter()
        var id: Int
        var dialog: Int
        var date: Date
        var isRead: Bool
    }

    static let slack = 2
    static let dialogs = 20
    static let perDialog = 8

    /// A DAO over a fresh file store holding the messages, and the store's clean-up.
    func storedMessages() throws -> (BaseDao<Message, MessageEntity>, () -> Void) {
        let fresh = try ContextFactory.fileJSON.make()
        let dao = BaseDao<Message, MessageEntity>(context: fresh.context)
        try dao.persist(
            (0..<Self.dialogs * Self.perDialog).map { index in
                Message(
                    id: index, dialog: index % Self.dialogs, date: Date(timeIntervalSince1970: Double(index)),
                    isRead: index % 3 == 0)
            })
        return (dao, fresh.cleanUp)
    }

    @Test func aColdQueryReadsTheStore() throws {
        // The counter is live on this path: the first query after opening decodes from disk.
        let (dao, cleanUp) = try storedMessages()
        defer { cleanUp() }
        let store = try #require(dao.context as? FileStorageContext)
        let reopened = BaseDao<Message, MessageEntity>(context: try FileStorageContext(directory: store.directory))
        let (found, decodes) = try MessageEntity.decodes.decodes {
            try reopened.read(where: #Predicate { $0.dialog == 7 })
        }
        #expect(found.count == Self.perDialog)
        #expect(decodes >= found.count)
    }

    @Test func aWarmEqualityQueryDecodesNoMoreThanItReturns() throws {
        let (dao, cleanUp) = try storedMessages()
        defer { cleanUp() }
        let query = { try dao.read(where: #Predicate<Message> { $0.dialog == 7 }) }
        _ = try query()  // cold: proves the key path and warms the context
        let (found, decodes) = try MessageEntity.decodes.decodes(during: query)
        #expect(found.count == Self.perDialog)
        #expect(decodes <= found.count + Self.slack, "decoded \(decodes) records to return \(found.count)")
    }

    @Test func aWarmScreenQueryDecodesNoMoreThanItReturns() throws {
        let (dao, cleanUp) = try storedMessages()
        defer { cleanUp() }
        let query = {
            try dao.read(
                where: #Predicate<Message> { $0.dialog == 7 }, sortedBy: [SortDescriptor(\.date, order: .reverse)],
                limit: 3)
        }
        _ = try query()
        let (page, decodes) = try MessageEntity.decodes.decodes(during: query)
        #expect(page.map(\.id) == [147, 127, 107])
        #expect(decodes <= page.count + Self.slack, "decoded \(decodes) records to return \(page.count)")
    }

    @Test func aWarmCountDecodesNoMoreThanItCounts() throws {
        let (dao, cleanUp) = try storedMessages()
        defer { cleanUp() }
        let query = { try dao.count(where: #Predicate<Message> { $0.dialog == 7 }) }
        _ = try query()
        let (count, decodes) = try MessageEntity.decodes.decodes(during: query)
        #expect(count == Self.perDialog)
        #expect(decodes <= count + Self.slack, "decoded \(decodes) records to count \(count)")
    }
}

extension WarmFileQueryDecodeTests.MessageEntity {
    /// The synthesized decoding, counted.
    init(from decoder: any Decoder) throws {
        Self.decodes.increment()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(Int.self, forKey: .id), dialog: try container.decode(Int.self, forKey: .dialog),
            date: try container.decode(Date.self, forKey: .date),
            isRead: try container.decode(Bool.self, forKey: .isRead))
    }
}
