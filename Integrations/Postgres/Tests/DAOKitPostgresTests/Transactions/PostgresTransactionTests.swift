import DAOKit
import DAOKitTesting
import Foundation
import PostgresNIO
import Testing

@testable import DAOKitPostgres

/// DAOKitTesting's transaction contract, on a schema of the server.
@Suite("Postgres transactions keep the contract", .timeLimit(.minutes(3)))
struct PostgresTransactionContractTests {
    @Test(
        "a schema on the server keeps every transaction promise", arguments: TransactionalStorageContextContract.checks)
    func schemaKeepsTheTransactionContract(_ check: ContractCheck) throws {
        try check.run(makeContext: { try TestServer.context() })
    }
}

/// Everything a transaction writes, over two types, commits together or not at all, for this
/// context and for another instance; a failed call inside undoes only itself.
@Suite("Postgres transactions commit two types together or neither", .timeLimit(.minutes(2)))
struct PostgresTransactionAtomicityTests {
    @Test func twoTypesCommitTogetherAndAnotherInstanceSeesNeitherBefore() throws {
        let schema = TestServer.freshSchema()
        let context = try TestServer.context(schema: schema)
        let other = try TestServer.context(schema: schema)
        defer { [context, other].forEach { $0.close() } }
        try context.transaction { tx in
            try PgTxTaskDao(context: tx).create(PgTxTask(id: "t", title: "Write"))
            try PgTxCommentDao(context: tx).create(PgTxComment(id: "c", taskID: "t"))
            #expect(try PgTxTaskDao(context: tx).count() == 1, "the handle reads its own write")
            #expect(try PgTxTaskDao(context: other).count() == 0, "another instance sees nothing yet")
            #expect(try PgTxCommentDao(context: other).count() == 0, "another instance sees nothing yet")
        }
        #expect(try PgTxTaskDao(context: other).read(id: "t") == PgTxTask(id: "t", title: "Write"))
        #expect(try PgTxCommentDao(context: other).read(id: "c") == PgTxComment(id: "c", taskID: "t"))
    }

    @Test func anErrorInAnAsyncBodyRollsBackBothTypes() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        try await context.save([PgTxTask(id: "kept", title: "Kept")])
        await #expect(throws: PgTxRollback.self) {
            try await context.transaction { tx in
                try await tx.save([PgTxTask(id: "kept", title: "Changed"), PgTxTask(id: "new", title: "New")])
                try await tx.save([PgTxComment(id: "c", taskID: "new")])
                #expect(try await tx.count(PgTxTask.self) == 2, "the handle reads its own writes")
                throw PgTxRollback()
            }
        }
        #expect(try await context.fetchAll(PgTxTask.self) == [PgTxTask(id: "kept", title: "Kept")])
        #expect(try await context.count(PgTxComment.self) == 0)
    }

    @Test func aBatchThatFailsInsideUndoesOnlyItselfAndTheRestCommits() throws {
        let context = try TestServer.context()
        defer { context.close() }
        try context.save([PgTxTask(id: "t1", title: "Stored")])
        try context.transaction { tx in
            // t2 is inserted before t1 is found stored: the batch's savepoint takes t2 back.
            #expect(throws: StorageError.self) {
                try tx.save([PgTxTask(id: "t2", title: "Half"), PgTxTask(id: "t1", title: "Twice")], mode: .insert)
            }
            try tx.save([PgTxComment(id: "c", taskID: "t1")])
        }
        #expect(try context.fetchAll(PgTxTask.self) == [PgTxTask(id: "t1", title: "Stored")])
        #expect(try context.count(PgTxComment.self) == 1)
    }

    @Test func aStatementTheServerRefusesLeavesTheTransactionAbleOnlyToRollBack() throws {
        let context = try TestServer.context()
        defer { context.close() }
        let error = try #require(throws: StorageError.self) {
            try context.transaction { tx in
                try tx.save([PgTxTask(id: "t", title: "Lost")])
                #expect(throws: StorageError.self) {
                    try tx.blocking(nil) {
                        try await tx.withConnection(entityName: nil) { connection in
                            try await connection.execute("SELECT 1/0", logger: TestServer.logger)
                        }
                    }
                }
                // The body goes on as if nothing happened: the next call refuses, and so does the commit.
                #expect(throws: StorageError.self) { try tx.count(PgTxTask.self) }
            }
        }
        #expect(error.description.contains("22012"), "the server's report of the refused statement: \(error)")
        #expect(try context.count(PgTxTask.self) == 0, "nothing committed")
    }

    @Test func aNestedTransactionsRefusedStatementIsUndoneWithIt() throws {
        let context = try TestServer.context()
        defer { context.close() }
        try context.transaction { tx in
            try tx.save([PgTxTask(id: "outer", title: "")])
            #expect(throws: StorageError.self) {
                try tx.transaction { inner in
                    try inner.save([PgTxTask(id: "inner", title: "")])
                    try inner.blocking(nil) {
                        try await inner.withConnection(entityName: nil) { connection in
                            try await connection.execute("SELECT 1/0", logger: TestServer.logger)
                        }
                    }
                }
            }
            try tx.save([PgTxComment(id: "c", taskID: "outer")])
        }
        #expect(try context.fetchAll(PgTxTask.self).map(\.id) == ["outer"])
        #expect(try context.count(PgTxComment.self) == 1)
    }

    @Test func aTransactionThatDeletesThenSavesAnIndexedTypeFirstUsedInItCommits() throws {
        // The index is created inside the transaction, which holds the table's lock: created by
        // the context on another connection, it would wait for the transaction, and the
        // transaction for it.
        let schema = TestServer.freshSchema()
        let first = try TestServer.context(schema: schema)
        try first.save([PgTxTask(id: "old", title: "Old")])
        first.close()
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        try context.transaction { tx in
            try tx.delete(PgTxTask.self, ids: ["old"])
            try tx.save([PgTxTask(id: "new", title: "New")])
        }
        #expect(try context.fetchAll(PgTxTask.self) == [PgTxTask(id: "new", title: "New")])
    }
}

/// A conflict with another transaction is ``StorageError/Kind/transactionConflict(_:)``; the
/// transaction runs again only when asked to, a bounded number of times.
@Suite("Postgres conflicts are retried when asked, else surfaced", .timeLimit(.minutes(2)))
struct PostgresTransactionConflictTests {
    /// A context and another instance on the same schema, with the counter at 0.
    private func contexts() throws -> (PostgresStorageContext, PostgresStorageContext) {
        let schema = TestServer.freshSchema()
        let context = try TestServer.context(schema: schema)
        let other = try TestServer.context(schema: schema)
        try context.save([PgTxCounter(id: "c", value: 0)])
        return (context, other)
    }

    /// Reads the counter through `tx`, lets `interfere` commit a change to it elsewhere, and
    /// writes it incremented.
    private func increment(_ tx: PostgresStorageContext, interfere: () throws -> Void) throws {
        let value = try #require(try tx.fetch(PgTxCounter.self, id: "c")).value
        try interfere()
        try tx.save([PgTxCounter(id: "c", value: value + 1)])
    }

    @Test func aRowAnotherInstanceChangedMeanwhileIsAConflictAndNothingCommits() throws {
        let (context, other) = try contexts()
        defer { [context, other].forEach { $0.close() } }
        var runs = 0
        let error = try #require(throws: StorageError.self) {
            try context.transaction { tx in
                runs += 1
                try increment(tx) { try other.save([PgTxCounter(id: "c", value: 10)]) }
                try tx.save([PgTxComment(id: "lost", taskID: "")])
            }
        }
        #expect(error.code == .transactionConflict, "\(error)")
        #expect(error.description.contains("40001"), "the server's report: \(error)")
        #expect(runs == 1, "transaction(_:) runs its body once")
        #expect(try context.fetch(PgTxCounter.self, id: "c")?.value == 10, "the other instance's write stays")
        #expect(try context.count(PgTxComment.self) == 0)
    }

    @Test func aConflictTheBodyCatchesStillFailsTheCommit() throws {
        let (context, other) = try contexts()
        defer { [context, other].forEach { $0.close() } }
        let error = try #require(throws: StorageError.self) {
            try context.transaction { tx in
                try tx.save([PgTxComment(id: "lost", taskID: "")])
                #expect(throws: StorageError.self) {
                    try increment(tx) { try other.save([PgTxCounter(id: "c", value: 10)]) }
                }
            }
        }
        #expect(error.code == .transactionConflict, "\(error)")
        #expect(try context.count(PgTxComment.self) == 0, "nothing committed")
    }

    @Test func retryingRunsTheBodyAgainOnANewSnapshotAndCommits() throws {
        let (context, other) = try contexts()
        defer { [context, other].forEach { $0.close() } }
        var runs = 0
        try context.transaction(retrying: 3) { tx in
            runs += 1
            try increment(tx) { if runs == 1 { try other.save([PgTxCounter(id: "c", value: 10)]) } }
        }
        #expect(runs == 2)
        #expect(try context.fetch(PgTxCounter.self, id: "c")?.value == 11, "the second run read the other's write")
    }

    @Test func retryingSurfacesTheServersConflictOnceTheRunsAreSpent() async throws {
        let (context, other) = try contexts()
        defer { [context, other].forEach { $0.close() } }
        let runs = PgTxLocked(0)
        let error = await #expect(throws: StorageError.self) {
            try await context.transaction(retrying: 1) { tx in
                runs.withLock { $0 += 1 }
                let value = try #require(try await tx.fetch(PgTxCounter.self, id: "c")).value
                try await other.save([PgTxCounter(id: "c", value: 100)])
                try await tx.save([PgTxCounter(id: "c", value: value + 1)])
            }
        }
        #expect(error?.code == .transactionConflict, "\(String(describing: error))")
        #expect(error?.description.contains("40001") == true, "the server's report: \(String(describing: error))")
        #expect(runs.withLock { $0 } == 1, "one run allowed, one run made")
        #expect(try await context.fetch(PgTxCounter.self, id: "c")?.value == 100, "the interfering write stays")
    }

    /// The run after a conflict locks the tables the failed run wrote before its snapshot, so a
    /// writer of the same row meanwhile waits for it instead of making it lose again: two runs,
    /// where an optimistic retry would lose its second run as well and spend its bound.
    @Test func aRunAfterAConflictCannotLoseToAWriterOfTheSameRowAgain() async throws {
        let (context, other) = try contexts()
        defer { [context, other].forEach { $0.close() } }
        let runs = PgTxLocked(0)
        let meanwhile = PgTxLocked<Task<Void, any Error>?>(nil)
        try await context.transaction(retrying: 2) { tx in
            let run = runs.withLock { runs in
                runs += 1
                return runs
            }
            let value = try #require(try await tx.fetch(PgTxCounter.self, id: "c")).value
            if run == 1 {
                try await other.save([PgTxCounter(id: "c", value: 10)])
            } else {
                // Not awaited by the body: this writer waits for the transaction's lock.
                meanwhile.withLock {
                    $0 = Task { try await other.save([PgTxCounter(id: "c", value: 500)]) }
                }
                try await Task.sleep(for: .milliseconds(300))
            }
            try await tx.save([PgTxCounter(id: "c", value: value + 1)])
        }
        #expect(runs.withLock { $0 } == 2)
        try await #require(meanwhile.withLock { $0 }).value
        #expect(
            try await context.fetch(PgTxCounter.self, id: "c")?.value == 500,
            "the waiting writer wrote after the second run's commit (11)")
    }

    @Test func aDeadlockTheServerBreaksIsRetried() async throws {
        let schema = TestServer.freshSchema()
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        try await context.save([PgTxCounter(id: "a", value: 0), PgTxCounter(id: "b", value: 0)])
        let barrier = PgTxBarrier(parties: 2)
        let runs = PgTxLocked(0)
        let failures = PgTxLocked<[String]>([])
        /// Writes `first`, waits (on its first run) until the other transaction has written its
        /// first row, then writes `second`: the two wait for each other's row.
        @Sendable func crossWrite(_ first: String, _ second: String) async throws {
            let firstRun = PgTxLocked(true)
            try await context.transaction(retrying: 5) { tx in
                runs.withLock { $0 += 1 }
                try await tx.save([PgTxCounter(id: first, value: 1)])
                if firstRun.withLock({ first in
                    defer { first = false }
                    return first
                }) {
                    await barrier.arrive()
                }
                try await tx.save([PgTxCounter(id: second, value: 2)])
            }
        }
        await withTaskGroup(of: Void.self) { group in
            for (first, second) in [("a", "b"), ("b", "a")] {
                group.addTask {
                    do { try await crossWrite(first, second) } catch { failures.withLock { $0.append("\(error)") } }
                }
            }
        }
        #expect(failures.withLock { $0 } == [], "both transactions committed in the end")
        // The victim runs again; that run may meet the survivor's commit too (a serialization
        // failure) and run once more.
        #expect(runs.withLock { $0 } >= 3, "the deadlock's victim ran again")
        let values = try await context.fetchAll(PgTxCounter.self).map(\.value).sorted()
        #expect(values == [1, 2], "the last to commit wrote both its rows: \(values)")
    }

    @Test func writeSkewIsAConflictForOneOfTheTwo() async throws {
        // Each transaction reads both rows and writes the one the other read: run one after the
        // other, the second would see the first's write, so SERIALIZABLE fails one of them.
        let schema = TestServer.freshSchema()
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        try await context.save([PgTxCounter(id: "a", value: 1), PgTxCounter(id: "b", value: 1)])
        let barrier = PgTxBarrier(parties: 2)
        let outcomes = PgTxLocked<[String]>([])
        await withTaskGroup(of: Void.self) { group in
            for target in ["a", "b"] {
                group.addTask {
                    do {
                        try await context.transaction { tx in
                            let total = try await tx.fetchAll(PgTxCounter.self).map(\.value).reduce(0, +)
                            await barrier.arrive()
                            try await tx.save([PgTxCounter(id: target, value: total)])
                        }
                        outcomes.withLock { $0.append("committed") }
                    } catch let error as StorageError where error.code == .transactionConflict {
                        outcomes.withLock { $0.append("conflict") }
                    } catch {
                        outcomes.withLock { $0.append("\(error)") }
                    }
                }
            }
        }
        #expect(outcomes.withLock { $0.sorted() } == ["committed", "conflict"])
        #expect(try await context.fetchAll(PgTxCounter.self).map(\.value).sorted() == [1, 2])
    }
}

/// `BaseDao.update(id:)` works on PostgreSQL: a read-modify-write in one transaction, run again
/// when it conflicts. The acceptance test: two instances each increment one counter 1,000
/// times through it, with its default number of attempts; no increment is lost.
@Suite("Postgres read-modify-write through update(id:) loses no increment", .timeLimit(.minutes(5)))
struct PostgresUpdateInPlaceTests {
    @Test func twoInstancesIncrementingAThousandTimesEachEndAtTwoThousand() throws {
        let schema = TestServer.freshSchema()
        let contexts = [try TestServer.context(schema: schema), try TestServer.context(schema: schema)]
        defer { contexts.forEach { $0.close() } }
        try PgTxCounterDao(context: contexts[0]).create(PgTxCounter(id: "c", value: 0))
        let runs = PgTxLocked(0)
        let failures = PgTxLocked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: contexts.count) { instance in
            let counters = PgTxCounterDao(context: contexts[instance])
            for _ in 0..<1_000 {
                do {
                    _ = try counters.update(id: "c") { counter in
                        runs.withLock { $0 += 1 }
                        counter.value += 1
                    }
                } catch {
                    failures.withLock { $0.append("instance \(instance): \(error)") }
                    return
                }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(try PgTxCounterDao(context: contexts[1]).read(id: "c")?.value == 2_000)
        #expect(runs.withLock { $0 } >= 2_000)
        print("update(id:) on PostgreSQL: 2000 increments took \(runs.withLock { $0 }) runs of the change")
    }

    @Test func anUpdateChangesTheStoredValueInOneTransaction() throws {
        let context = try TestServer.context()
        defer { context.close() }
        try PgTxCounterDao(context: context).create(PgTxCounter(id: "c", value: 41))
        let updated = try PgTxCounterDao(context: context).update(id: "c") { $0.value += 1 }
        #expect(updated == PgTxCounter(id: "c", value: 42))
        #expect(try PgTxCounterDao(context: context).read(id: "c")?.value == 42)
    }

    @Test func anUpdateOfAMissingIdWritesNothing() throws {
        let context = try TestServer.context()
        defer { context.close() }
        let updated = try PgTxCounterDao(context: context).update(id: "absent") { $0.value += 1 }
        #expect(updated == nil)
        #expect(try context.count(PgTxCounter.self) == 0)
    }

    /// `update(_:ifUnchangedFrom:)` from two instances over one value they both read: one wins,
    /// the other is a conflict, round after round, and a value changed in between is never
    /// overwritten.
    @Test func ofTwoInstancesWritingOverOneReadValueExactlyOneWins() throws {
        let schema = TestServer.freshSchema()
        let contexts = [try TestServer.context(schema: schema), try TestServer.context(schema: schema)]
        defer { contexts.forEach { $0.close() } }
        var read = PgTxCounter(id: "c", value: 0)
        try PgTxCounterDao(context: contexts[0]).create(read)
        for round in 1...20 {
            let outcomes = PgTxLocked<[String]>([])
            let before = read
            DispatchQueue.concurrentPerform(iterations: 2) { instance in
                do {
                    try PgTxCounterDao(context: contexts[instance]).update(
                        PgTxCounter(id: "c", value: round * 10 + instance), ifUnchangedFrom: before)
                    outcomes.withLock { $0.append("won") }
                } catch let error as StorageError where error.code == .transactionConflict {
                    outcomes.withLock { $0.append("conflict") }
                } catch {
                    outcomes.withLock { $0.append("\(error)") }
                }
            }
            #expect(outcomes.withLock { $0.sorted() } == ["conflict", "won"], "round \(round)")
            read = try #require(try PgTxCounterDao(context: contexts[1]).read(id: "c"))
            #expect(read.value / 10 == round)
        }
    }
}

/// Observers in another instance hear of a transaction once, after its commit, with every type
/// it wrote, and never of one that rolled back.
@Suite("Postgres observers hear of a transaction once", .timeLimit(.minutes(2)))
struct PostgresTransactionObservationTests {
    @Test func anotherInstanceHearsOfACommitOnceWithBothTypesAndNeverOfARollback() throws {
        let schema = TestServer.freshSchema()
        let writer = try TestServer.context(schema: schema)
        let observer = try TestServer.context(schema: schema)
        defer { [writer, observer].forEach { $0.close() } }
        let batches = PgTxLocked<[Set<String>]>([])
        let subscription = try #require(observer.changeNotifier).subscribe { changes in
            batches.withLock { $0.append(Set(changes.map { $0.entityName ?? "*" })) }
        }
        defer { subscription.cancel() }
        try writer.transaction { tx in
            try PgTxTaskDao(context: tx).create(PgTxTask(id: "t", title: "Write"))
            try PgTxCommentDao(context: tx).create(PgTxComment(id: "c", taskID: "t"))
            try PgTxTaskDao(context: tx).update(PgTxTask(id: "t", title: "Written"))
        }
        #expect(throws: PgTxRollback.self) {
            try writer.transaction { tx in
                try tx.save([PgTxDraft(id: "d")])
                try tx.save([PgTxComment(id: "c2", taskID: "t")])
                throw PgTxRollback()
            }
        }
        try writer.save([PgTxMarker(id: "after")])
        let deadline = Date().addingTimeInterval(30)
        while !batches.withLock({ $0.contains { $0.contains(PgTxMarker.entityName) } }) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.01)
        }
        let heard = batches.withLock { $0 }
        #expect(heard.contains { $0.contains(PgTxMarker.entityName) }, "the marker's announcement: \(heard)")
        let naming = heard.filter { $0.contains(PgTxTask.entityName) }
        #expect(naming.count == 1, "one announcement names the task type: \(heard)")
        #expect(naming.first?.contains(PgTxComment.entityName) == true, "with the comment type: \(heard)")
        #expect(!heard.contains { $0.contains(PgTxDraft.entityName) || $0.contains("*") }, "\(heard)")
    }
}
