import DAOKit
import Foundation
import Testing

/// An indexed query on `InMemoryStorageContext` touches only what the index selects: counted by
/// the entity's `init(from:)`, which the context calls for every entity it copies out, it decodes
/// no more records than it returns, plus a small constant.
@Suite("Indexed queries on memory decode what they return", .serialized)
struct IndexedQueryDecodeTests {
    struct Message: Codable, Identifiable, Equatable {
        var id: Int
        var dialog: Int
        var date: Date
        var isRead: Bool
        var text: String
    }

    struct MessageEntity: Storable {
        static let indexes = [StorageIndex("dialog", "date"), StorageIndex("isRead")]
        static let decodes = DecodeCounter()
        var id: Int
        var dialog: Int
        var date: Date
        var isRead: Bool
        var text: String
    }

    /// Records decoded beyond those returned that a query may cost: the proof's sample, a record
    /// read to check a page's end.
    static let slack = 2
    static let dialogs = 40
    static let perDialog = 10

    let dao: BaseDao<Message, MessageEntity>

    init() throws {
        dao = BaseDao(context: InMemoryStorageContext())
        let messages = (0..<Self.dialogs * Self.perDialog).map { index in
            Message(
                id: index, dialog: index % Self.dialogs, date: Date(timeIntervalSince1970: Double(index * 60)),
                isRead: index % 2 == 0, text: "message \(index)")
        }
        try dao.persist(messages)
    }

    /// Runs `query` once to prove its key paths and fill any cache, then again counting decodes.
    func decodes<T>(of query: () throws -> T) throws -> (result: T, decodes: Int) {
        _ = try query()
        return try MessageEntity.decodes.decodes(during: query)
    }

    @Test func theCounterSeesEveryRecordAFullReadDecodes() throws {
        let (all, decodes) = try decodes { try dao.read() }
        #expect(all.count == Self.dialogs * Self.perDialog)
        #expect(decodes >= all.count)
    }

    @Test func theScreenQueryReachesTheContextWhole() throws {
        // What the decode counts below rely on: the filter, sort and page are all handed to the
        // context, so only the context's index can keep it from decoding every record.
        let recording = QueryRecordingContext(InMemoryStorageContext())
        let dao = BaseDao<Message, MessageEntity>(context: recording)
        try dao.persist(try self.dao.read())
        _ = try dao.read(
            where: #Predicate { $0.dialog == 7 && $0.isRead == false },
            sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: 3)
        let requests = recording.takeRequests()
        guard case .fetch(let query)? = requests.last else {
            Issue.record("the context was not asked a query: \(requests)")
            return
        }
        #expect(Set(query.filter?.fields ?? []) == ["dialog", "isRead"], "\(query)")
        #expect(query.sort == [StorageSortKey("date", order: .reverse)], "\(query)")
        #expect(query.limit == 3 && query.offset == 0, "\(query)")
    }

    @Test func anEqualityOnTheLeadingIndexFieldDecodesOnlyWhatItReturns() throws {
        let (found, decodes) = try decodes { try dao.read(where: #Predicate { $0.dialog == 7 }) }
        #expect(found.count == Self.perDialog)
        #expect(found.allSatisfy { $0.dialog == 7 })
        #expect(decodes <= found.count + Self.slack, "decoded \(decodes) records to return \(found.count)")
    }

    @Test func aRangeOnTheLeadingIndexFieldDecodesOnlyWhatItReturns() throws {
        let (found, decodes) = try decodes { try dao.read(where: #Predicate { $0.dialog >= 38 }) }
        #expect(found.count == 2 * Self.perDialog)
        #expect(decodes <= found.count + Self.slack, "decoded \(decodes) records to return \(found.count)")
    }

    @Test func anEqualitySortedByTheNextIndexFieldAndPagedDecodesOnlyThePage() throws {
        let (page, decodes) = try decodes {
            try dao.read(
                where: #Predicate { $0.dialog == 7 }, sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: 3)
        }
        #expect(page.map(\.id) == [367, 327, 287])
        #expect(decodes <= page.count + Self.slack, "decoded \(decodes) records to return \(page.count)")
    }

    @Test func theScreenQueryDecodesNoMoreThanTheDialogHolds() throws {
        // The unread filter is not on the index's leading fields: at worst every message of the
        // dialog is looked at, never another dialog's.
        let (page, decodes) = try decodes {
            try dao.read(
                where: #Predicate { $0.dialog == 7 && $0.isRead == false },
                sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: 3)
        }
        #expect(page.map(\.id) == [367, 327, 287])
        #expect(decodes <= Self.perDialog + Self.slack, "decoded \(decodes) records for a dialog of \(Self.perDialog)")
    }

    @Test func anIndexedCountDecodesNoMoreThanItCounts() throws {
        let (count, decodes) = try decodes { try dao.count(where: #Predicate { $0.dialog == 7 }) }
        #expect(count == Self.perDialog)
        #expect(decodes <= count + Self.slack, "decoded \(decodes) records to count \(count)")
    }
}

extension IndexedQueryDecodeTests.MessageEntity {
    /// The synthesized decoding, counted.
    init(from decoder: any Decoder) throws {
        Self.decodes.increment()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(Int.self, forKey: .id), dialog: try container.decode(Int.self, forKey: .dialog),
            date: try container.decode(Date.self, forKey: .date),
            isRead: try container.decode(Bool.self, forKey: .isRead),
            text: try container.decode(String.self, forKey: .text))
    }
}
