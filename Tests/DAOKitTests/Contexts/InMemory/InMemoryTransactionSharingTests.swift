import DAOKit
import Foundation
import Testing

/// A transaction in memory takes each table it touches by sharing its records with the context
/// rather than copying them. Neither side may then see the other's writes: not by id, not in a
/// full read, not through an index. Every check compares what an indexed query answers with a
/// full scan of the same side, so an index entry left pointing at a record the other side changed
/// shows up as a different answer.
@Suite("In-memory transactions: records shared with the context never change under either side")
struct InMemoryTransactionSharingTests {
    @Test func theContextSeesNoneOfAnOpenTransactionsWritesThroughItsIndexes() throws {
        let context = try Self.seeded()
        try context.transaction { tx in
            try Self.move(["t0", "t1", "t2"], to: "done", rank: 100, on: tx)
            try Self.expectConsistent(tx, done: ["t0", "t1", "t2"])
            try Self.expectConsistent(context, done: [])
        }
        try Self.expectConsistent(context, done: ["t0", "t1", "t2"])
    }

    @Test func aTransactionDoesNotSeeTheContextsWritesToRecordsItHasRead() throws {
        let context = try Self.seeded()
        try context.transaction { tx in
            try Self.expectConsistent(tx, done: [])
            // Written beside the transaction, to records the transaction shares.
            try Self.move(["t3", "t4"], to: "done", rank: -1, on: context)
            try Self.expectConsistent(tx, done: [])
            try Self.expectConsistent(context, done: ["t3", "t4"])
            #expect(try TaskDao(context: tx).read(id: "t3")?.status == "open")
        }
        // The transaction only read: nothing to conflict with, and the context keeps its writes.
        try Self.expectConsistent(context, done: ["t3", "t4"])
    }

    @Test func bothSidesWritingOneTypeKeepTheirOwnRecordsAndTheCommitFails() throws {
        let context = try Self.seeded()
        let error = try #require(throws: StorageError.self) {
            try context.transaction { tx in
                try Self.move(["t0"], to: "done", rank: 50, on: tx)
                try Self.move(["t1"], to: "done", rank: 60, on: context)
                try Self.expectConsistent(tx, done: ["t0"])
                try Self.expectConsistent(context, done: ["t1"])
            }
        }
        #expect(error.code == .transactionConflict)
        try Self.expectConsistent(context, done: ["t1"])
    }

    @Test func aRolledBackTransactionLeavesEveryRecordAndIndexAsBefore() throws {
        let context = try Self.seeded()
        struct Abandoned: Error {}
        #expect(throws: Abandoned.self) {
            try context.transaction { tx in
                try Self.move(Self.ids, to: "done", rank: 7, on: tx)
                try TaskDao(context: tx).erase(id: "t5")
                throw Abandoned()
            }
        }
        try Self.expectConsistent(context, done: [])
        // The context's records are its own again: written in place, its indexes still agree.
        try Self.move(["t2"], to: "done", rank: 3, on: context)
        try Self.expectConsistent(context, done: ["t2"])
    }

    @Test func aSavepointRolledBackKeepsTheOuterTransactionsOwnWrites() throws {
        let context = try Self.seeded()
        struct Abandoned: Error {}
        try context.transaction { tx in
            try Self.move(["t0"], to: "done", rank: 11, on: tx)
            #expect(throws: Abandoned.self) {
                try tx.transaction { inner in
                    try Self.move(["t0", "t1"], to: "blocked", rank: 12, on: inner)
                    try Self.expectConsistent(inner, done: [])
                    throw Abandoned()
                }
            }
            try Self.expectConsistent(tx, done: ["t0"])
            #expect(try TaskDao(context: tx).read(id: "t0")?.rank == 11)
            try Self.expectConsistent(context, done: [])
        }
        try Self.expectConsistent(context, done: ["t0"])
        #expect(try TaskDao(context: context).read(id: "t1")?.status == "open")
    }

    @Test func recordsCommittedByATransactionChangeInPlaceAfterwards() throws {
        let context = try Self.seeded()
        try context.transaction { tx in try Self.move(["t0", "t1"], to: "done", rank: 20, on: tx) }
        for round in 0..<3 {
            try Self.move(["t0"], to: round.isMultiple(of: 2) ? "done" : "open", rank: round, on: context)
            try Self.move(["t6"], to: "done", rank: 30 + round, on: context)
        }
        try Self.expectConsistent(context, done: ["t0", "t1", "t6"])
    }

    /// The context's lock and the handle's are different locks: a writer on another thread
    /// changes the records the transaction reads while it reads them. Run under ThreadSanitizer
    /// by `.ci/run`: a shared record changed in place would be a data race as well as a wrong
    /// answer.
    @Test func aWriterOnAnotherThreadNeverChangesWhatAnOpenTransactionReads() async throws {
        let context = try Self.seeded()
        try await context.transaction { tx in
            try Self.expectConsistent(tx, done: [])
            let writer = Task.detached {
                for round in 0..<200 {
                    try Self.move([Self.ids[round % Self.ids.count]], to: "done", rank: 1_000 + round, on: context)
                }
            }
            for _ in 0..<50 { try Self.expectConsistent(tx, done: []) }
            try await writer.value
            try Self.expectConsistent(tx, done: [])
        }
        try Self.expectConsistent(context, done: Set(Self.ids))
    }

    // MARK: - Fixture

    fileprivate typealias TaskDao = BaseDao<SharedTask, SharedTask>
    fileprivate static let ids = (0..<12).map { "t\($0)" }

    private static func seeded() throws -> InMemoryStorageContext {
        let context = InMemoryStorageContext()
        try TaskDao(context: context).persist(
            ids.enumerated().map { SharedTask(id: $1, status: "open", rank: $0, title: "task \($0)") })
        return context
    }

    /// Gives the tasks `ids` `status` and `rank`, one save each, through `context`.
    fileprivate static func move(
        _ ids: [String], to status: String, rank: Int, on context: InMemoryStorageContext
    ) throws {
        let dao = TaskDao(context: context)
        for id in ids {
            var task = try #require(try dao.read(id: id))
            task.status = status
            task.rank = rank
            try dao.persist(task)
        }
    }

    /// Checks that `context` holds every task, exactly `done` of them done, and that its indexed
    /// queries (by status, sorted by rank, and a count) answer what a full scan does.
    fileprivate static func expectConsistent(
        _ context: InMemoryStorageContext, done: Set<String>,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let dao = TaskDao(context: context)
        let all = try dao.read()
        #expect(Set(all.map(\.id)) == Set(ids), sourceLocation: sourceLocation)
        let scanned = all.filter { $0.status == "done" }
        #expect(Set(scanned.map(\.id)) == done, sourceLocation: sourceLocation)
        let queried = try dao.read(
            where: #Predicate { $0.status == "done" }, sortedBy: [SortDescriptor(\.rank), SortDescriptor(\.id)])
        let expected = scanned.sorted { ($0.rank, $0.id) < ($1.rank, $1.id) }
        #expect(queried == expected, sourceLocation: sourceLocation)
        #expect(try dao.count(where: #Predicate { $0.status == "done" }) == done.count, sourceLocation: sourceLocation)
        let ranked = try dao.read(where: #Predicate { $0.rank >= 0 }, sortedBy: [SortDescriptor(\.rank)])
        #expect(
            ranked.map(\.id).sorted() == all.filter { $0.rank >= 0 }.map(\.id).sorted(),
            sourceLocation: sourceLocation)
        #expect(ranked.map(\.rank) == ranked.map(\.rank).sorted(), sourceLocation: sourceLocation)
    }
}

/// A task indexed by status and by rank, so that a write moves entries in both indexes.
private struct SharedTask: Storable, Codable, Identifiable, Equatable {
    static var indexes: [StorageIndex] { [StorageIndex("status"), StorageIndex("rank")] }
    var id: String
    var status: String
    var rank: Int
    var title: String
}
