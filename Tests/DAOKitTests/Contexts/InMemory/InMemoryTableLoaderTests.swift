import Testing

@testable import DAOKit

/// Loading a table at once (what a file context's first query does): the table answers what one
/// built by storing each record answers, whether its index is built when a query first walks it
/// or was kept through the stores, and writes after loading keep that index exact.
@Suite("In-memory table loading")
struct InMemoryTableLoaderTests {
    struct Item: Storable {
        static let indexes = [StorageIndex("group", "rank")]
        var id: Int
        var group: Int
        var rank: Int
    }

    /// Another type saved under the same entity name, with the same indexes.
    struct OtherItem: Storable {
        static var entityName: String { Item.entityName }
        static var indexes: [StorageIndex] { Item.indexes }
        var id: Int
        var group: Int
        var rank: Int
    }

    /// `count` items in 7 groups, in an order that is neither by id nor by rank.
    static func items(_ count: Int) -> [Item] {
        var generator = SeededGenerator(seed: 8)
        return (0..<count).map { Item(id: $0, group: $0 % 7, rank: ($0 * 37) % 101) }.shuffled(using: &generator)
    }

    /// One group's items, highest rank first, ties by the order they went in; a page of them.
    static let query = StorageQuery(
        filter: .compare("group", .equal, .int(3)), sort: [StorageSortKey("rank", order: .reverse)],
        limit: 25, offset: 4)

    func loaded(_ entities: [any Storable & Encodable], order: inout UInt64) throws -> InMemoryTable {
        let layout = IndexLayout.of(Item.self)
        var loader = InMemoryTable.Loader(layout: layout, capacity: entities.count)
        for entity in entities {
            let key = String(try #require((entity as? Item)?.id ?? (entity as? OtherItem)?.id))
            loader.add(entity, values: try layout.values(of: entity), forKey: key, order: &order)
        }
        return loader.finish()
    }

    func stored(_ items: [Item], order: inout UInt64) throws -> InMemoryTable {
        let layout = IndexLayout.of(Item.self)
        var table = InMemoryTable(layout: layout)
        for item in items {
            if table.store(item, values: try layout.values(of: item), forKey: String(item.id), order: order) == nil {
                order += 1
            }
        }
        return table
    }

    /// The keys `query` selects under the lock; `nil` when the table leaves the query to be
    /// evaluated outside it, which a query on indexed fields never should.
    func keys(_ query: StorageQuery, in table: inout InMemoryTable) -> [String]? {
        guard case .answer(let records) = table.select(query) else { return nil }
        return records.map(\.key)
    }

    @Test func aLoadedTableAnswersAnIndexedQueryAsATableBuiltByStoringEachRecord() throws {
        let items = Self.items(1_000)
        var (loadOrder, storeOrder): (UInt64, UInt64) = (0, 0)
        var loaded = try loaded(items, order: &loadOrder)
        var stored = try stored(items, order: &storeOrder)
        #expect(loaded.count == 1_000 && loadOrder == 1_000)
        let expected = try #require(keys(Self.query, in: &stored))
        #expect(expected.count == 25)
        #expect(keys(Self.query, in: &loaded) == expected)
        guard case .answer(let count) = loaded.count(matching: .compare("rank", .greater, .int(50))) else {
            Issue.record("a count on an indexed field was not answered under the lock")
            return
        }
        #expect(count == items.filter { $0.rank > 50 }.count)
    }

    @Test func writesAfterLoadingReachTheIndexBuiltByTheFirstQuery() throws {
        let items = Self.items(600)
        var (loadOrder, storeOrder): (UInt64, UInt64) = (0, 0)
        var loaded = try loaded(items, order: &loadOrder)
        var stored = try stored(items, order: &storeOrder)
        _ = keys(Self.query, in: &loaded)  // builds the index
        let layout = IndexLayout.of(Item.self)
        let moved = Item(id: items[0].id, group: 3, rank: 1_000)
        let added = Item(id: 5_000, group: 3, rank: 999)
        #expect(
            loaded.store(moved, values: try layout.values(of: moved), forKey: String(moved.id), order: loadOrder) != nil
        )
        #expect(
            stored.store(moved, values: try layout.values(of: moved), forKey: String(moved.id), order: storeOrder)
                != nil)
        #expect(loaded.store(added, values: try layout.values(of: added), forKey: "5000", order: loadOrder) == nil)
        #expect(stored.store(added, values: try layout.values(of: added), forKey: "5000", order: storeOrder) == nil)
        #expect(loaded.remove(forKey: String(items[1].id)) != nil)
        #expect(stored.remove(forKey: String(items[1].id)) != nil)
        let top = StorageQuery(
            filter: .compare("group", .equal, .int(3)), sort: [StorageSortKey("rank", order: .reverse)], limit: 2)
        #expect(keys(top, in: &loaded) == [String(moved.id), "5000"])
        let expected = try #require(keys(Self.query, in: &stored))
        #expect(keys(Self.query, in: &loaded) == expected)
    }

    @Test func aKeyLoadedTwiceKeepsTheLaterEntityUnderTheFirstOrder() throws {
        var order: UInt64 = 0
        let first = Item(id: 1, group: 3, rank: 10)
        let second = Item(id: 2, group: 3, rank: 10)
        let replacement = Item(id: 1, group: 3, rank: 10)
        var table = try loaded([first, second, replacement], order: &order)
        #expect(table.count == 2 && order == 2)
        // Equal values: the first key loaded still comes first, as if the entity had been replaced.
        #expect(
            keys(StorageQuery(filter: .compare("group", .equal, .int(3)), sort: [StorageSortKey("rank")]), in: &table)
                == ["1", "2"])
        #expect(table.snapshots(notOf: Item.self).isEmpty)
    }

    @Test func aLoadedTableCountsEveryTypeItHoldsAndForgetsOneAllOfWhoseEntitiesWereReplaced() throws {
        var order: UInt64 = 0
        let mixed: [any Storable & Encodable] = [
            Item(id: 1, group: 0, rank: 0), OtherItem(id: 2, group: 0, rank: 0),
            Item(id: 3, group: 0, rank: 0),
        ]
        let table = try loaded(mixed, order: &order)
        #expect(table.snapshots(notOf: Item.self).map(\.key) == ["2"])
        // The only other-typed entity replaced by an `Item` under its key: one type left.
        let replaced = try loaded(mixed + [Item(id: 2, group: 0, rank: 0)], order: &order)
        #expect(replaced.snapshots(notOf: Item.self).isEmpty)
        #expect(replaced.count == 3)
    }
}
