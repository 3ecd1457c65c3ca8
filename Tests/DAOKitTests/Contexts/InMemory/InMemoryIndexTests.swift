import Foundation
import Synchronization
import Testing

@testable import DAOKit

/// The in-memory context's indexes: queries through them answer what a scan answers, touch only
/// the range they need, and every write — failed batches and concurrent writers included — keeps
/// them exact.
@Suite("In-memory indexes")
struct InMemoryIndexTests {
    struct Chat: Codable, Identifiable, Equatable, Sendable {
        var id: Int
        var dialogID: Int
        var date: Date
        var isRead: Bool
        var text: String
    }

    /// Counts `init(from:)` calls per thread-independent counter, so a test can see how many
    /// entities a query copied.
    struct ChatEntity: Storable {
        static let indexes = [StorageIndex("dialogID", "date"), StorageIndex("isRead")]
        static let decodes = Atomic<Int>(0)
        var id: Int
        var dialogID: Int
        var date: Date
        var isRead: Bool
        var text: String

        init(id: Int, dialogID: Int, date: Date, isRead: Bool, text: String) {
            (self.id, self.dialogID, self.date, self.isRead, self.text) = (id, dialogID, date, isRead, text)
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            dialogID = try container.decode(Int.self, forKey: .dialogID)
            date = try container.decode(Date.self, forKey: .date)
            isRead = try container.decode(Bool.self, forKey: .isRead)
            text = try container.decode(String.self, forKey: .text)
            if dialogID >= 0 { Self.decodes.add(1, ordering: .relaxed) }
        }
    }

    /// The same records without indexes: the scan every indexed answer is compared with.
    struct PlainChatEntity: Storable {
        var id: Int
        var dialogID: Int
        var date: Date
        var isRead: Bool
        var text: String
    }

    static func chats(_ count: Int, dialogs: Int = 10) -> [Chat] {
        (0..<count).map { i in
            Chat(
                id: i, dialogID: i % dialogs, date: Date(timeIntervalSinceReferenceDate: Double((i * 7_919) % 1_000)),
                isRead: i % 3 == 0, text: "message \(i)")
        }
    }

    func daos(_ chats: [Chat]) throws -> (indexed: BaseDao<Chat, ChatEntity>, plain: BaseDao<Chat, PlainChatEntity>) {
        let indexed = BaseDao<Chat, ChatEntity>(context: InMemoryStorageContext())
        let plain = BaseDao<Chat, PlainChatEntity>(context: InMemoryStorageContext())
        try indexed.persist(chats)
        try plain.persist(chats)
        return (indexed, plain)
    }

    @Test func theScreenQueryThroughTheIndexAnswersWhatAScanAnswers() throws {
        let (indexed, plain) = try daos(Self.chats(2_000))
        for dialog in [0, 3, 9, 42] {
            let predicate = #Predicate<Chat> { $0.dialogID == dialog && $0.isRead == false }
            let sort = [SortDescriptor(\Chat.date, order: .reverse), SortDescriptor(\Chat.id)]
            let expected = try plain.read(where: predicate, sortedBy: sort, limit: 20, offset: 5)
            #expect(try indexed.read(where: predicate, sortedBy: sort, limit: 20, offset: 5) == expected)
            #expect(try indexed.count(where: predicate) == plain.count(where: predicate))
        }
    }

    @Test func rangesOnTheLeadingAndSecondFieldAnswerWhatAScanAnswers() throws {
        let (indexed, plain) = try daos(Self.chats(1_500))
        let low = Date(timeIntervalSinceReferenceDate: 200)
        let high = Date(timeIntervalSinceReferenceDate: 600)
        let predicates = [
            #Predicate<Chat> { $0.dialogID == 4 && $0.date > low && $0.date <= high },
            #Predicate<Chat> { $0.dialogID >= 3 && $0.dialogID < 6 },
            #Predicate<Chat> { 7 <= $0.dialogID && $0.isRead },
            #Predicate<Chat> { $0.isRead == true || $0.dialogID == 2 },
            #Predicate<Chat> { $0.dialogID != 1 && $0.text.starts(with: "message 1") },
        ]
        for predicate in predicates {
            for sort in [
                [SortDescriptor(\Chat.date), SortDescriptor(\Chat.id)], [SortDescriptor(\Chat.id, order: .reverse)], [],
            ] {
                let expected = try plain.read(where: predicate, sortedBy: sort)
                let actual = try indexed.read(where: predicate, sortedBy: sort)
                if sort.isEmpty {
                    #expect(actual.map(\.id).sorted() == expected.map(\.id).sorted())
                } else {
                    #expect(actual == expected)
                }
            }
        }
    }

    /// ``ChatEntity`` with a decode counter of its own, used by one test only, so that no other
    /// test's decodes are counted with its own.
    struct CountedChatEntity: Storable {
        static var indexes: [StorageIndex] { ChatEntity.indexes }
        static let decodes = Atomic<Int>(0)
        var id: Int
        var dialogID: Int
        var date: Date
        var isRead: Bool
        var text: String

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            dialogID = try container.decode(Int.self, forKey: .dialogID)
            date = try container.decode(Date.self, forKey: .date)
            isRead = try container.decode(Bool.self, forKey: .isRead)
            text = try container.decode(String.self, forKey: .text)
            Self.decodes.add(1, ordering: .relaxed)
        }
    }

    @Test func anIndexedQueryCopiesOnlyTheEntitiesItReturns() throws {
        let indexed = BaseDao<Chat, CountedChatEntity>(context: InMemoryStorageContext())
        try indexed.persist(Self.chats(5_000))
        // Proves the key paths and the sort descriptor's direction once (probes decode a few entities).
        _ = try indexed.read(
            where: #Predicate { $0.dialogID == 1 && $0.isRead == false },
            sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: 1)
        let before = CountedChatEntity.decodes.load(ordering: .relaxed)
        let page = try indexed.read(
            where: #Predicate { $0.dialogID == 7 && $0.isRead == false },
            sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: 20)
        let decoded = CountedChatEntity.decodes.load(ordering: .relaxed) - before
        #expect(page.count == 20)
        #expect(decoded == page.count, "decoded \(decoded) for \(page.count) results")
    }

    @Test func aBatchThatFailsLeavesEveryIndexAsItWas() throws {
        let context = InMemoryStorageContext()
        let chats = Self.chats(300)
        let dao = BaseDao<Chat, ChatEntity>(context: context)
        try dao.persist(chats)
        var clash = chats[10]
        clash.dialogID = 99
        // Insert-only: the existing id fails the whole batch after the new entity was copied.
        let fresh = Chat(id: 1_000, dialogID: 99, date: .now, isRead: false, text: "new")
        #expect(throws: StorageError.self) { try dao.create(clash) }
        #expect(throws: StorageError.self) {
            try context.save([fresh, clash].map { try EntityMapper().map($0, to: ChatEntity.self) }, mode: .insert)
        }
        #expect(try dao.read(where: #Predicate { $0.dialogID == 99 }).isEmpty)
        #expect(try dao.count(where: #Predicate { $0.dialogID == 0 }) == 30)
    }

    @Test func replacingAndDeletingMoveEntriesOutOfTheirOldRange() throws {
        let (indexed, _) = try daos(Self.chats(100))
        var moved = try #require(try indexed.read(id: 5))
        moved.dialogID = 77
        try indexed.persist(moved)
        try indexed.erase(id: 6)
        #expect(try indexed.read(where: #Predicate { $0.dialogID == 77 }).map(\.id) == [5])
        #expect(!(try indexed.read(where: #Predicate { $0.dialogID == 5 }).map(\.id).contains(5)))
        #expect(!(try indexed.read(where: #Predicate { $0.dialogID == 6 }).map(\.id).contains(6)))
        try indexed.erase(where: #Predicate { $0.dialogID == 77 })
        #expect(try indexed.read(id: 5) == nil)
    }

    @Test func replacingAnEntityWithoutChangingAnIndexedFieldIsSeenByIndexedQueries() throws {
        let (indexed, _) = try daos(Self.chats(50))
        var edited = try #require(try indexed.read(id: 12))
        edited.text = "edited"
        try indexed.persist(edited)
        let found = try indexed.read(
            where: #Predicate { $0.dialogID == 2 && $0.isRead == true }, sortedBy: [SortDescriptor(\.id)])
        #expect(found.first { $0.id == 12 }?.text == "edited")
        #expect(found.map(\.id) == Self.chats(50).filter { $0.dialogID == 2 && $0.isRead }.map(\.id))
    }

    /// Every query the indexes answer, run on both stores: the answers must be the same.
    func expectIndexesAgreeWithAScan(
        _ indexed: BaseDao<Chat, ChatEntity>, _ plain: BaseDao<Chat, PlainChatEntity>,
        dialogs: Int = 10, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for read in [true, false] {
            let byRead = #Predicate<Chat> { $0.isRead == read }
            #expect(
                try indexed.read(where: byRead, sortedBy: [SortDescriptor(\.id)])
                    == plain.read(where: byRead, sortedBy: [SortDescriptor(\.id)]), sourceLocation: sourceLocation)
            #expect(try indexed.count(where: byRead) == plain.count(where: byRead), sourceLocation: sourceLocation)
        }
        for dialog in 0..<dialogs {
            let screen = #Predicate<Chat> { $0.dialogID == dialog && $0.isRead == false }
            let order = [SortDescriptor(\Chat.date, order: .reverse), SortDescriptor(\Chat.id)]
            #expect(
                try indexed.read(where: screen, sortedBy: order, limit: 7)
                    == plain.read(where: screen, sortedBy: order, limit: 7),
                sourceLocation: sourceLocation)
            let inDialog = #Predicate<Chat> { $0.dialogID == dialog }
            #expect(
                try indexed.read(where: inDialog, sortedBy: [SortDescriptor(\.date), SortDescriptor(\.id)])
                    == plain.read(where: inDialog, sortedBy: [SortDescriptor(\.date), SortDescriptor(\.id)]),
                sourceLocation: sourceLocation)
        }
    }

    /// Both stores with the same writes applied.
    func persist(_ chats: [Chat], to daos: (indexed: BaseDao<Chat, ChatEntity>, plain: BaseDao<Chat, PlainChatEntity>))
        throws
    {
        for chat in chats {
            try daos.indexed.persist(chat)
            try daos.plain.persist(chat)
        }
    }

    @Test func entitiesWithNaNDatesCanBeReplacedAndDeletedAndEveryIndexStaysExact() throws {
        // Every fifth date NaN: each index must find those entries again to move or remove them.
        let chats = Self.chats(1_200).map { chat in
            var chat = chat
            if chat.id % 5 == 0 { chat.date = Date(timeIntervalSinceReferenceDate: .nan) }
            return chat
        }
        let stores = try daos(chats)
        let redated = chats.filter { $0.id % 10 < 2 }.map { chat in
            var chat = chat
            chat.date =
                chat.date.timeIntervalSinceReferenceDate.isNaN
                ? Date(timeIntervalSinceReferenceDate: 5) : Date(timeIntervalSinceReferenceDate: .nan)
            return chat
        }
        try persist(redated, to: stores)
        let doomed = chats.filter { $0.id % 15 == 0 }.map(\.id)
        try stores.indexed.erase(ids: doomed)
        try stores.plain.erase(ids: doomed)
        let middle = Date(timeIntervalSinceReferenceDate: 500)
        for dialog in 0..<10 {
            // NaN dates sort nowhere in particular, and a NaN date equals nothing, itself included:
            // compare ids, in id order.
            for predicate in [
                #Predicate<Chat> { $0.dialogID == dialog },
                #Predicate<Chat> { $0.dialogID == dialog && $0.date > middle },
                #Predicate<Chat> { $0.dialogID == dialog && $0.date <= middle },
            ] {
                #expect(
                    try stores.indexed.read(where: predicate, sortedBy: [SortDescriptor(\.id)]).map(\.id)
                        == stores.plain.read(where: predicate, sortedBy: [SortDescriptor(\.id)]).map(\.id))
                #expect(try stores.indexed.count(where: predicate) == stores.plain.count(where: predicate))
            }
        }
        #expect(try stores.indexed.count(where: #Predicate { $0.dialogID >= 0 }) == chats.count - doomed.count)
    }

    @Test func flippingTheLeadingFieldOfAnIndexMovesEachEntryBetweenChunksAndKeepsEveryIndexExact() throws {
        // Enough records for several chunks per index, so that moved entries leave and enter
        // chunks at their ends as well as in their middles.
        let chats = Self.chats(1_200)
        let stores = try daos(chats)
        let flipped = chats.map { chat in
            var chat = chat
            chat.isRead.toggle()
            return chat
        }
        try persist(flipped.filter { $0.id % 4 != 1 }, to: stores)
        try expectIndexesAgreeWithAScan(stores.indexed, stores.plain)
        // And back, in another order.
        try persist(chats.filter { $0.id % 4 != 1 }.reversed(), to: stores)
        try expectIndexesAgreeWithAScan(stores.indexed, stores.plain)
        #expect(try stores.indexed.read(where: #Predicate { $0.isRead == true }).count == chats.filter(\.isRead).count)
    }

    @Test func aWalkInSortOrderSeesTheLatestValueOfAFieldItsIndexIsNotOrderedBy() throws {
        // Flipping the read state leaves the `(dialogID, date)` entries as they were (they are not
        // ordered by it); a walk of that index in date order must still filter on the new state.
        let chats = Self.chats(600)
        let stores = try daos(chats)
        try persist(
            chats.filter { $0.id % 4 == 0 }.map { chat in
                var chat = chat
                chat.isRead.toggle()
                return chat
            }, to: stores)
        for dialog in 0..<10 {
            for read in [false, true] {
                let screen = #Predicate<Chat> { $0.dialogID == dialog && $0.isRead == read }
                // One sort field, the index's second: the walk yields the order, and stops at the limit.
                let newest = [SortDescriptor(\Chat.date, order: .reverse)]
                let found = try stores.indexed.read(where: screen, sortedBy: newest)
                #expect(found.allSatisfy { $0.isRead == read && $0.dialogID == dialog })
                #expect(found.map(\.id).sorted() == (try stores.plain.read(where: screen).map(\.id).sorted()))
                #expect(
                    try stores.indexed.read(where: screen, sortedBy: newest, limit: 3).map(\.date)
                        == Array(found.prefix(3).map(\.date)))
                #expect(try stores.indexed.count(where: screen) == found.count)
            }
        }
    }

    @Test func replacingOnlyTheSecondFieldOfACompoundIndexReordersTheEntryWithinItsRange() throws {
        let chats = Self.chats(600)
        let stores = try daos(chats)
        // Dates only: the `(dialogID, date)` entry moves within its dialog, the `isRead` entry
        // keeps its place but carries the new date.
        let redated = chats.filter { $0.id % 3 == 2 }.map { chat in
            var chat = chat
            chat.date = Date(timeIntervalSinceReferenceDate: 5_000 - chat.date.timeIntervalSinceReferenceDate)
            return chat
        }
        try persist(redated, to: stores)
        try expectIndexesAgreeWithAScan(stores.indexed, stores.plain)
        let newest = try #require(
            try stores.indexed.read(
                where: #Predicate { $0.dialogID == 2 },
                sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: 1
            ).first)
        #expect(newest.id % 3 == 2)
    }

    @Test func replacingWithEveryIndexedFieldUnchangedKeepsEveryEntryWhereItWas() throws {
        let chats = Self.chats(400)
        let stores = try daos(chats)
        try persist(
            chats.map { chat in
                var chat = chat
                chat.text = "edited \(chat.id)"
                return chat
            }, to: stores)
        try expectIndexesAgreeWithAScan(stores.indexed, stores.plain)
        #expect(
            try stores.indexed.read(where: #Predicate { $0.dialogID == 3 }).allSatisfy { $0.text.hasPrefix("edited") })
    }

    @Test func aFailedBatchAfterReplacesThatMovedEntriesLeavesEveryIndexAsTheReplacesLeftIt() throws {
        let chats = Self.chats(500)
        let stores = try daos(chats)
        // Replaces of every kind: flipped read state, a new date, a new dialog, an unchanged key.
        let replaced = chats.filter { $0.id % 5 == 0 }.map { chat in
            var chat = chat
            switch chat.id % 4 {
            case 0: chat.isRead.toggle()
            case 1: chat.date = chat.date.addingTimeInterval(333)
            case 2: chat.dialogID = (chat.dialogID + 1) % 10
            default: chat.text = "kept key"
            }
            return chat
        }
        try persist(replaced, to: stores)
        // Insert-only: every entity of the batch is read and copied, then the existing id fails it.
        let batch =
            [Chat(id: 9_000, dialogID: 4, date: .now, isRead: false, text: "new")]
            + replaced.prefix(20).map { chat in
                var chat = chat
                chat.isRead.toggle()
                chat.dialogID = 9
                return chat
            }
        #expect(throws: StorageError.self) {
            try stores.indexed.context.save(
                try batch.map { try EntityMapper().map($0, to: ChatEntity.self) }, mode: .insert)
        }
        try expectIndexesAgreeWithAScan(stores.indexed, stores.plain)
        #expect(try stores.indexed.read(id: 9_000) == nil)
    }

    @Test func eightConcurrentWritersLeaveIndexesThatAgreeWithAScan() async throws {
        let context = InMemoryStorageContext()
        let dao = BaseDao<Chat, ChatEntity>(context: context)
        try await dao.persist(Self.chats(10))  // a sample for the proof
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let dao = BaseDao<Chat, ChatEntity>(context: context)
                    for step in 0..<200 {
                        let id = writer * 1_000 + step % 50
                        let chat = Chat(
                            id: id, dialogID: (step + writer) % 5,
                            date: Date(timeIntervalSinceReferenceDate: Double(step)),
                            isRead: step % 2 == 0, text: "w\(writer)")
                        if step % 7 == 6 { try? dao.erase(id: id) } else { try? dao.persist(chat) }
                    }
                }
            }
        }
        let everything = try await dao.read()
        for dialog in 0..<5 {
            let viaIndex = try await dao.read(
                where: #Predicate { $0.dialogID == dialog }, sortedBy: [SortDescriptor(\.id)])
            #expect(viaIndex == everything.filter { $0.dialogID == dialog }.sorted { $0.id < $1.id })
        }
    }

    struct Named: Codable, Identifiable, Equatable, Sendable {
        var id: Int
        var name: String
        var rank: Int
    }

    /// Indexes on strings: no inline key decides a comparison, so every search reads the values —
    /// the record's own for `(name)`, the entry's copy for `(rank, name)`.
    struct NamedEntity: Storable {
        static let indexes = [StorageIndex("name"), StorageIndex("rank", "name")]
        var id: Int
        var name: String
        var rank: Int
    }

    @Test func renamingEntitiesInIndexesOfStringsKeepsEveryIndexExact() throws {
        let dao = BaseDao<Named, NamedEntity>(context: InMemoryStorageContext())
        var named = (0..<600).map { Named(id: $0, name: "n\($0 % 37)", rank: $0 % 5) }
        try dao.persist(named)
        // Renamed (the record's values change under both indexes), re-ranked (only the second
        // index moves), or both; some to a name already taken, some to the name they had.
        for position in named.indices where position % 3 != 0 {
            switch position % 4 {
            case 0: named[position].name = "m\(position % 11)"
            case 1: named[position].rank += 10
            case 2: (named[position].name, named[position].rank) = ("n\(position % 7)", position % 3)
            default: named[position].name = "n\(position % 37)"
            }
        }
        try dao.persist(named)
        for name in Set(named.map(\.name)) {
            let byName = #Predicate<Named> { $0.name == name }
            #expect(try dao.read(where: byName, sortedBy: [SortDescriptor(\.id)]) == named.filter { $0.name == name })
            #expect(try dao.count(where: byName) == named.filter { $0.name == name }.count)
        }
        for rank in Set(named.map(\.rank)) {
            let fromN2 = #Predicate<Named> { $0.rank == rank && $0.name >= "n2" }
            #expect(
                try dao.read(where: fromN2, sortedBy: [SortDescriptor(\.id)])
                    == named.filter { $0.rank == rank && $0.name >= "n2" })
        }
        try dao.erase(ids: named.filter { $0.id % 2 == 0 }.map(\.id))
        #expect(try dao.count(where: #Predicate { $0.name >= "" }) == 300)
    }

    /// Another entity type saved under ``ChatEntity``'s name, with other indexes.
    struct OtherChatEntity: Storable {
        static var entityName: String { ChatEntity.entityName }
        static let indexes = [StorageIndex("text")]
        var id: Int, dialogID: Int, date: Date, isRead: Bool, text: String
    }

    @Test func anotherTypeWithOtherIndexedFieldsReplacingStoredEntitiesIsReadBackByScans() throws {
        let context = InMemoryStorageContext()
        let dao = BaseDao<Chat, ChatEntity>(context: context)
        let chats = Self.chats(60)
        try dao.persist(chats)
        // Key 5 now holds an entity carrying one indexed value where it carried three.
        try context.save([OtherChatEntity(id: 5, dialogID: 7, date: .now, isRead: true, text: "taken over")])
        let inSeven = try dao.read(where: #Predicate { $0.dialogID == 7 }, sortedBy: [SortDescriptor(\.id)])
        #expect(inSeven.map(\.id) == (chats.filter { $0.dialogID == 7 }.map(\.id) + [5]).sorted())
        #expect(inSeven.first { $0.id == 5 }?.text == "taken over")
        // And back: three values again.
        var back = chats[5]
        back.text = "back"
        try dao.persist(back)
        #expect(try dao.read(id: 5) == back)
        #expect(try dao.count(where: #Predicate { $0.dialogID == 7 }) == chats.filter { $0.dialogID == 7 }.count)
        #expect(
            try dao.read(where: #Predicate { $0.dialogID == 5 }, sortedBy: [SortDescriptor(\.id)]).map(\.id)
                == chats.filter { $0.dialogID == 5 }.map(\.id))
    }

    @Test func aSecondTypeWithOtherIndexesUnderTheSameNameFallsBackToScanning() throws {
        let context = InMemoryStorageContext()
        let dao = BaseDao<Chat, ChatEntity>(context: context)
        try dao.persist(Self.chats(60))
        try context.save([OtherChatEntity(id: 500, dialogID: 3, date: .now, isRead: false, text: "other")])
        let found = try dao.read(where: #Predicate { $0.dialogID == 3 }, sortedBy: [SortDescriptor(\.id)])
        #expect(found.map(\.id) == Self.chats(60).filter { $0.dialogID == 3 }.map(\.id) + [500])
    }
}
