import DAOKit
import DAOKitInternals
import Foundation

/// What ``TransactionalStorageContext`` promises (see ``TransactionalStorageContextContract``).
extension ContractChecks {
    static let transactions: [ContractCheck] = [
        transactionCheck("aTaskAndItsCommentCommitTogether") { context in
            let title = try context.transaction { tx in
                try FixtureTxTaskDao(context: tx).create(FixtureTxTask(id: "t1", project: "p", title: "Write"))
                try FixtureTxCommentDao(context: tx).create(FixtureTxComment(id: "c1", taskID: "t1", text: "first"))
                return "Write"
            }
            try Expect.equal(title, "Write", "what the body returned")
            try Expect.equal(try FixtureTxTaskDao(context: context).read(id: "t1")?.title, "Write", "the task")
            try Expect.equal(try FixtureTxCommentDao(context: context).read(id: "c1")?.taskID, "t1", "the comment")
        },
        transactionCheck("anErrorInTheBodyLeavesNeitherType") { context in
            let kept = FixtureTxTask(id: "t0", project: "p", title: "Kept")
            try FixtureTxTaskDao(context: context).create(kept)
            try Expect.failure("a body that throws", matching: { $0 is TransactionCheckFailure }) {
                try context.transaction { tx in
                    try FixtureTxTaskDao(context: tx).create(FixtureTxTask(id: "t1", project: "p", title: "Lost"))
                    try FixtureTxTaskDao(context: tx).update(FixtureTxTask(id: "t0", project: "q", title: "Changed"))
                    try FixtureTxCommentDao(context: tx).create(FixtureTxComment(id: "c1", taskID: "t1", text: ""))
                    throw TransactionCheckFailure()
                }
            }
            try Expect.equal(try FixtureTxTaskDao(context: context).read(), [kept], "tasks after the rollback")
            try Expect.equal(try FixtureTxCommentDao(context: context).count(), 0, "comments after the rollback")
            // A call that fails inside the body is rolled back with the rest when its error propagates.
            try Expect.failure("a body whose create of a stored id throws", matching: { $0 is StorageError }) {
                try context.transaction { tx in
                    try FixtureTxCommentDao(context: tx).create(FixtureTxComment(id: "c2", taskID: "t0", text: ""))
                    try FixtureTxTaskDao(context: tx).create(FixtureTxTask(id: "t0", project: "p", title: "Twice"))
                }
            }
            try Expect.equal(try FixtureTxCommentDao(context: context).count(), 0, "comments after the failed create")
        },
        transactionCheck("readsInsideSeeTheTransactionsWrites") { context in
            try FixtureTxTaskDao(context: context).persist([
                FixtureTxTask(id: "a", project: "p", title: "A"), FixtureTxTask(id: "b", project: "q", title: "B"),
            ])
            try context.transaction { tx in
                let tasks = FixtureTxTaskDao(context: tx)
                try tasks.persist(FixtureTxTask(id: "c", project: "p", title: "C"))
                try tasks.update(FixtureTxTask(id: "b", project: "p", title: "B moved"))
                try tasks.erase(id: "a")
                try Expect.equal(try tasks.read(id: "c")?.title, "C", "a task created inside")
                try Expect.equal(try tasks.read(id: "a"), nil, "a task erased inside")
                let inP = try tasks.read(
                    where: #Predicate<FixtureTxTask> { $0.project == "p" }, sortedBy: [SortDescriptor(\.id)])
                try Expect.equal(inP.map(\.id), ["b", "c"], "a query inside")
                try Expect.equal(
                    try tasks.count(where: #Predicate<FixtureTxTask> { $0.project == "p" }), 2, "a count inside")
                try Expect.equal(try tasks.count(), 2, "the number of tasks inside")
            }
            try Expect.equal(
                try FixtureTxTaskDao(context: context).read().map(\.id).sorted(), ["b", "c"], "tasks after commit")
        },
        transactionCheck("readersOutsideSeeNothingUntilCommit") { context in
            let outside = FixtureTxTaskDao(context: context)
            try outside.create(FixtureTxTask(id: "a", project: "p", title: "A"))
            try context.transaction { tx in
                try FixtureTxTaskDao(context: tx).create(FixtureTxTask(id: "b", project: "p", title: "B"))
                try FixtureTxTaskDao(context: tx).erase(id: "a")
                try FixtureTxCommentDao(context: tx).create(FixtureTxComment(id: "c", taskID: "b", text: ""))
                // Another thread reads meanwhile: it sees the store as before the transaction.
                let seen = Locked<Result<([String], Int), any Error>?>(nil)
                let reader = Thread {
                    let result = Result {
                        (try outside.read().map(\.id), try FixtureTxCommentDao(context: context).count())
                    }
                    seen.withLock { $0 = result }
                }
                reader.start()
                try waitUntil("the reader on another thread") { seen.withLock { $0 != nil } }
                let (tasks, comments) = try seen.withLock { $0 }!.get()
                try Expect.equal(tasks, ["a"], "tasks a reader outside sees during the transaction")
                try Expect.equal(comments, 0, "comments a reader outside sees during the transaction")
            }
            try Expect.equal(try outside.read().map(\.id), ["b"], "tasks after commit")
            try Expect.equal(try FixtureTxCommentDao(context: context).count(), 1, "comments after commit")
        },
        transactionCheck("aNestedTransactionIsASavepoint") { context in
            try context.transaction { tx in
                try FixtureTxTaskDao(context: tx).create(FixtureTxTask(id: "outer", project: "p", title: ""))
                try Expect.failure("a nested body that throws", matching: { $0 is TransactionCheckFailure }) {
                    try tx.transaction { inner in
                        try FixtureTxTaskDao(context: inner).create(
                            FixtureTxTask(id: "undone", project: "p", title: ""))
                        try Expect.equal(try FixtureTxTaskDao(context: inner).count(), 2, "tasks in the nested one")
                        throw TransactionCheckFailure()
                    }
                }
                try tx.transaction { inner in
                    try FixtureTxCommentDao(context: inner).create(FixtureTxComment(id: "c", taskID: "outer", text: ""))
                }
                try Expect.equal(try FixtureTxTaskDao(context: tx).read().map(\.id), ["outer"], "tasks after nesting")
                try Expect.equal(try FixtureTxCommentDao(context: tx).count(), 1, "comments after nesting")
            }
            try Expect.equal(try FixtureTxTaskDao(context: context).read().map(\.id), ["outer"], "tasks after commit")
            try Expect.equal(try FixtureTxCommentDao(context: context).count(), 1, "comments after commit")
            // What a nested transaction committed goes when the outer one rolls back.
            try Expect.failure("an outer body that throws", matching: { $0 is TransactionCheckFailure }) {
                try context.transaction { tx in
                    try tx.transaction { inner in
                        try FixtureTxTaskDao(context: inner).create(FixtureTxTask(id: "x", project: "p", title: ""))
                    }
                    throw TransactionCheckFailure()
                }
            }
            try Expect.equal(try FixtureTxTaskDao(context: context).count(), 1, "tasks after the outer rollback")
        },
        transactionCheck("anEscapedHandleIsRefused") { context in
            try refusesEscapedHandle(context)
        },
        transactionCheck("observersHearOfACommitOnceWithBothTypes") { context in
            let batches = try recordingChanges(of: context) {
                try context.transaction { tx in
                    try FixtureTxTaskDao(context: tx).create(FixtureTxTask(id: "t", project: "p", title: ""))
                    try FixtureTxCommentDao(context: tx).create(FixtureTxComment(id: "c", taskID: "t", text: ""))
                    try FixtureTxTaskDao(context: tx).update(FixtureTxTask(id: "t", project: "q", title: ""))
                }
            }
            let naming = batches.filter { $0.contains(FixtureTxTaskEntity.entityName) }
            try Expect.equal(naming.count, 1, "announcements naming the task type")
            try Expect.that(
                naming.first?.contains(FixtureTxCommentEntity.entityName) == true,
                "the announcement names the comment type too: \(naming)")
        },
        transactionCheck("observersNeverHearOfARollback") { context in
            let batches = try recordingChanges(of: context) {
                try Expect.failure("a body that throws", matching: { $0 is TransactionCheckFailure }) {
                    try context.transaction { tx in
                        try FixtureTxTaskDao(context: tx).create(FixtureTxTask(id: "t", project: "p", title: ""))
                        try FixtureTxCommentDao(context: tx).create(FixtureTxComment(id: "c", taskID: "t", text: ""))
                        throw TransactionCheckFailure()
                    }
                }
            }
            let named = batches.flatMap { $0 }
            try Expect.that(
                !named.contains(FixtureTxTaskEntity.entityName) && !named.contains(FixtureTxCommentEntity.entityName),
                "no announcement names a type of the rolled-back transaction: \(batches)")
        },
        transactionCheck("concurrentReadModifyWriteTransactionsLoseNoIncrement") { context in
            try incrementsConcurrently(context)
        },
    ]

    /// A check of a context that must be a ``TransactionalStorageContext``; `body` gets it opened
    /// as its own type.
    private static func transactionCheck(
        _ name: String, _ body: @escaping @Sendable (any TransactionalStorageContext) throws -> Void
    ) -> ContractCheck {
        ContractCheck(name) { context in
            guard let transactional = context as? any TransactionalStorageContext else {
                throw ExpectationFailure(
                    message: "\(type(of: context)) is not a TransactionalStorageContext", location: name)
            }
            try body(transactional)
        }
    }

    private static func refusesEscapedHandle<C: TransactionalStorageContext>(_ context: C) throws {
        let committed = try context.transaction { tx in tx }
        try Expect.storageErrorKind(.transactionClosed, "a create through a committed transaction's handle") {
            try FixtureTxTaskDao(context: committed).create(FixtureTxTask(id: "late", project: "p", title: ""))
        }
        try Expect.storageErrorKind(.transactionClosed, "a count through a committed transaction's handle") {
            try committed.count(FixtureTxTaskEntity.self)
        }
        let rolledBack = Locked<C?>(nil)
        try Expect.failure("a body that throws", matching: { $0 is TransactionCheckFailure }) {
            try context.transaction { tx in
                rolledBack.withLock { $0 = tx }
                throw TransactionCheckFailure()
            }
        }
        guard let handle = rolledBack.withLock({ $0 }) else {
            throw ExpectationFailure(message: "the body did not run", location: "anEscapedHandleIsRefused")
        }
        try Expect.storageErrorKind(.transactionClosed, "a read through a rolled-back transaction's handle") {
            try handle.fetchAll(FixtureTxTaskEntity.self)
        }
        try Expect.equal(try context.count(FixtureTxTaskEntity.self), 0, "tasks stored")
    }

    /// Runs `body`, then writes a marker and waits for its announcement; returns the entity
    /// names of every announcement up to it. A context without a ``StorageContext/changeNotifier``
    /// announces nothing, so nothing can be heard: the list is empty.
    private static func recordingChanges(
        of context: some StorageContext, during body: () throws -> Void
    ) throws -> [Set<String>] {
        guard let notifier = context.changeNotifier else {
            try body()
            return []
        }
        let batches = Locked<[Set<String>]>([])
        let subscription = notifier.subscribe { changes in
            batches.withLock { $0.append(Set(changes.compactMap(\.entityName))) }
        }
        defer { subscription.cancel() }
        try body()
        try context.save([FixtureTxMarker(id: "after")])
        try waitUntil("the announcement of a write after the transaction") {
            batches.withLock { $0.contains { $0.contains(FixtureTxMarker.entityName) } }
        }
        // A notifier may deliver the marker's change in one batch with earlier ones: keep them all.
        return batches.withLock { $0 }
    }

    private static func incrementsConcurrently<C: TransactionalStorageContext>(_ context: C) throws {
        let threads = 2
        let increments = 200
        try context.save([FixtureCounterEntity(id: 1, value: 0)])
        let problems = Locked<[String]>([])
        let group = DispatchGroup()
        for thread in 0..<threads {
            group.enter()
            Thread {
                defer { group.leave() }
                var conflicts = 0
                for _ in 0..<increments {
                    while true {
                        do {
                            try context.transaction { tx in
                                let counter = try tx.fetch(FixtureCounterEntity.self, id: 1)
                                try tx.save([FixtureCounterEntity(id: 1, value: (counter?.value ?? 0) + 1)])
                            }
                            break
                        } catch let error as StorageError where error.code == .transactionConflict {
                            // Another thread committed first: run the increment again, bounded so
                            // that a context that always conflicts fails the check instead of
                            // hanging it.
                            conflicts += 1
                            if conflicts > 100 * increments {
                                problems.withLock { $0.append("thread \(thread): conflicts without end") }
                                return
                            }
                        } catch {
                            problems.withLock { $0.append("thread \(thread): \(error)") }
                            return
                        }
                    }
                }
            }.start()
        }
        group.wait()
        try Expect.equal(problems.withLock { $0 }, [], "problems reported by the threads")
        try Expect.equal(
            try context.fetch(FixtureCounterEntity.self, id: 1)?.value, threads * increments,
            "the counter after \(threads) threads × \(increments) increments")
    }

    /// Waits for `condition` without timing anything; fails after a generous guard against hangs.
    private static func waitUntil(_ what: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(30)
        while !condition() {
            if Date() > deadline { throw ExpectationFailure(message: "\(what) never came", location: what) }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }
}

/// The error the transaction checks throw from a body to roll it back.
private struct TransactionCheckFailure: Error {}
