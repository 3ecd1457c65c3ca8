import DAOKit
import Foundation
import Synchronization
import Testing

/// A key-value transaction reads each value and list of keys as it first read them, and its commit
/// fails with `transactionConflict`, writing nothing, when another writer through the context
/// changed one of them meanwhile: an update made in a transaction is never lost.
@Suite("Key-value transactions: what another writer changed meanwhile is a conflict, never lost")
struct KeyValueTransactionIsolationTests {
    struct Counter: Storable, Equatable {
        var id: String
        var value: Int
    }

    static func context(holding counters: [Counter] = [Counter(id: "c", value: 0)]) throws -> KeyValueStorageContext {
        let context = KeyValueStorageContext(store: InMemoryKeyValueStore())
        try context.save(counters)
        return context
    }

    @Test func aValueChangedAfterTheTransactionReadItIsAConflictAndNothingIsWritten() throws {
        let context = try Self.context()
        let error = try #require(throws: StorageError.self) {
            try context.transaction { tx in
                let read = try #require(try tx.fetch(Counter.self, id: "c"))
                try context.save([Counter(id: "c", value: 10)])  // another writer, meanwhile
                #expect(try tx.fetch(Counter.self, id: "c") == read, "reads inside repeat the first read")
                try tx.save([Counter(id: "c", value: read.value + 1), Counter(id: "d", value: 1)])
            }
        }
        #expect(error.code == .transactionConflict)
        #expect(error.entityName == Counter.entityName)
        #expect(error.key == "c")
        #expect(try context.fetchAll(Counter.self) == [Counter(id: "c", value: 10)])
    }

    @Test func aRecordAddedToAListingTheTransactionReadIsAConflict() throws {
        let context = try Self.context()
        let error = try #require(throws: StorageError.self) {
            try context.transaction { tx in
                let all = try tx.fetchAll(Counter.self)
                try context.save([Counter(id: "late", value: 5)])
                #expect(try tx.count(Counter.self) == all.count, "the listing inside repeats the first one")
                try tx.save([Counter(id: "total", value: all.map(\.value).reduce(0, +))])
            }
        }
        #expect(error.code == .transactionConflict)
        #expect(error.entityName == Counter.entityName)
        #expect(try context.fetch(Counter.self, id: "total") == nil)
        #expect(try context.count(Counter.self) == 2)
    }

    /// A body that only reads saw a state that never was (a before the move, b after): the
    /// commit says so. One that read b before the move too would commit: what it saw was the
    /// store as it was until then.
    @Test func aReadOnlyTransactionThatSawTwoStatesIsAConflict() throws {
        let context = try Self.context(holding: [Counter(id: "a", value: 1), Counter(id: "b", value: 1)])
        let error = try #require(throws: StorageError.self) {
            _ = try context.transaction { tx in
                let a = try tx.fetch(Counter.self, id: "a")
                // Another writer moves a unit from a to b: a was read before, b after.
                try context.save([Counter(id: "a", value: 0), Counter(id: "b", value: 2)])
                return (a, try tx.fetch(Counter.self, id: "b"))
            }
        }
        #expect(error.code == .transactionConflict)
    }

    @Test func writesToRecordsTheTransactionDidNotReadDoNotConflict() throws {
        let context = try Self.context(holding: [Counter(id: "a", value: 1), Counter(id: "b", value: 1)])
        try context.transaction { tx in
            let a = try #require(try tx.fetch(Counter.self, id: "a"))
            try context.save([Counter(id: "b", value: 7), Counter(id: "new", value: 0)])
            try tx.save([Counter(id: "a", value: a.value + 1)])
        }
        #expect(
            try context.fetchAll(Counter.self).sorted { $0.id < $1.id }
                == [Counter(id: "a", value: 2), Counter(id: "b", value: 7), Counter(id: "new", value: 0)])
    }

    @Test func aNestedTransactionSeesTheOuterOnesWritesAndCommitsIntoIt() throws {
        let context = try Self.context()
        try context.transaction { outer in
            try outer.save([Counter(id: "c", value: 1)])
            try outer.transaction { inner in
                let seen = try #require(try inner.fetch(Counter.self, id: "c"))
                try inner.save([Counter(id: "c", value: seen.value + 1)])
            }
            #expect(try outer.fetch(Counter.self, id: "c") == Counter(id: "c", value: 2))
        }
        #expect(try context.fetch(Counter.self, id: "c") == Counter(id: "c", value: 2))
    }

    /// Two threads each add 1 a thousand times through a read-modify-write transaction, running it
    /// again on a conflict: every increment is kept.
    @Test func concurrentIncrementsThroughTransactionsAreNeverLost() throws {
        let context = try Self.context()
        let conflicts = Mutex(0)
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            for _ in 0..<1_000 {
                while true {
                    do {
                        try context.transaction { tx in
                            let counter = try tx.fetch(Counter.self, id: "c") ?? Counter(id: "c", value: 0)
                            try tx.save([Counter(id: "c", value: counter.value + 1)])
                        }
                        break
                    } catch let error as StorageError where error.code == .transactionConflict {
                        conflicts.withLock { $0 += 1 }
                    } catch {
                        failures.withLock { $0.append(String(describing: error)) }
                        return
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try context.fetch(Counter.self, id: "c")?.value == 2_000)
    }
}
