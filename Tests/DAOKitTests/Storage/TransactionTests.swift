import DAOKit
import DAOKitInternals
import DAOKitTestSupport
import Foundation
import Testing

/// The promises of `TransactionalStorageContext`, checked on every shipped context that conforms
/// (`ContextFactory.transactional`), synchronously and with `async` bodies.
@Suite("Transactions: all or nothing over two types, isolated, observed once")
struct TransactionTests {
    static let factories = ContextFactory.transactional

    @Test(arguments: factories) func aTaskAndItsCommentCommitTogether(_ factory: ContextFactory) throws {
        try factory.withTransactional { context in try commitsTwoTypes(context) }
    }

    @Test(arguments: factories) func anErrorInTheBodyLeavesNeitherType(_ factory: ContextFactory) throws {
        try factory.withTransactional { context in try rollsBackBothTypes(context) }
    }

    @Test(arguments: factories) func readsInsideSeeTheTransactionsWrites(_ factory: ContextFactory) throws {
        try factory.withTransactional { context in try readsItsOwnWrites(context) }
    }

    @Test(arguments: factories) func readersOutsideSeeNothingUntilCommit(_ factory: ContextFactory) throws {
        try factory.withTransactional { context in try isolatesOutsideReaders(context) }
    }

    @Test(arguments: factories) func aNestedTransactionIsASavepoint(_ factory: ContextFactory) throws {
        try factory.withTransactional { context in try nestsAsSavepoint(context) }
    }

    @Test(arguments: factories) func anEscapedHandleIsRefused(_ factory: ContextFactory) throws {
        try factory.withTransactional { context in try refusesEscapedHandle(context) }
    }

    @Test(arguments: factories) func observersHearOfACommitOnceWithBothTypes(_ factory: ContextFactory) throws {
        try factory.withTransactional { context in try observedOnceAfterCommit(context) }
    }

    @Test(arguments: factories) func observersNeverHearOfARollback(_ factory: ContextFactory) throws {
        try factory.withTransactional { context in try notObservedAfterRollback(context) }
    }

    @Test(arguments: factories) func anAsyncBodyCommitsAndRollsBackAlike(_ factory: ContextFactory) async throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = try #require(fresh.context as? any TransactionalStorageContext)
        try await asyncCommitAndRollback(context)
    }
}

// MARK: - The checks, generic over the context

private func commitsTwoTypes<C: TransactionalStorageContext>(_ context: C) throws {
    let title = try context.transaction { tx in
        try TxTaskDao(context: tx).create(TxTask(id: "t1", project: "p", title: "Write"))
        try TxCommentDao(context: tx).create(TxComment(id: "c1", taskID: "t1", text: "first"))
        return "Write"
    }
    #expect(title == "Write")
    #expect(try TxTaskDao(context: context).read(id: "t1")?.title == "Write")
    #expect(try TxCommentDao(context: context).read(id: "c1")?.taskID == "t1")
}

private func rollsBackBothTypes<C: TransactionalStorageContext>(_ context: C) throws {
    try TxTaskDao(context: context).create(TxTask(id: "t0", project: "p", title: "Kept"))
    #expect(throws: TxFailure.self) {
        try context.transaction { tx in
            try TxTaskDao(context: tx).create(TxTask(id: "t1", project: "p", title: "Lost"))
            try TxTaskDao(context: tx).update(TxTask(id: "t0", project: "q", title: "Changed"))
            try TxCommentDao(context: tx).create(TxComment(id: "c1", taskID: "t1", text: "lost"))
            throw TxFailure()
        }
    }
    #expect(try TxTaskDao(context: context).read() == [TxTask(id: "t0", project: "p", title: "Kept")])
    #expect(try TxCommentDao(context: context).count() == 0)
    // A failing call inside the body is rolled back with the rest when its error propagates.
    #expect(throws: StorageError.self) {
        try context.transaction { tx in
            try TxCommentDao(context: tx).create(TxComment(id: "c2", taskID: "t0", text: "lost too"))
            try TxTaskDao(context: tx).create(TxTask(id: "t0", project: "p", title: "Duplicate"))
        }
    }
    #expect(try TxCommentDao(context: context).count() == 0)
}

private func readsItsOwnWrites<C: TransactionalStorageContext>(_ context: C) throws {
    try TxTaskDao(context: context).persist([
        TxTask(id: "a", project: "p", title: "A"), TxTask(id: "b", project: "q", title: "B"),
    ])
    try context.transaction { tx in
        let tasks = TxTaskDao(context: tx)
        try tasks.persist(TxTask(id: "c", project: "p", title: "C"))
        try tasks.update(TxTask(id: "b", project: "p", title: "B moved"))
        try tasks.erase(id: "a")
        #expect(try tasks.read(id: "c")?.title == "C")
        #expect(try tasks.read(id: "a") == nil)
        let inP = try tasks.read(where: #Predicate<TxTask> { $0.project == "p" }, sortedBy: [SortDescriptor(\.id)])
        #expect(inP.map(\.id) == ["b", "c"])
        #expect(try tasks.count(where: #Predicate<TxTask> { $0.project == "p" }) == 2)
        #expect(try tasks.count() == 2)
        #expect(try tx.count(TxTaskEntity.self, matching: .compare("project", .equal, .string("q"))) == 0)
    }
    #expect(try TxTaskDao(context: context).read().map(\.id).sorted() == ["b", "c"])
}

private func isolatesOutsideReaders<C: TransactionalStorageContext>(_ context: C) throws {
    let outside = TxTaskDao(context: context)
    try outside.create(TxTask(id: "a", project: "p", title: "A"))
    try context.transaction { tx in
        try TxTaskDao(context: tx).create(TxTask(id: "b", project: "p", title: "B"))
        try TxTaskDao(context: tx).erase(id: "a")
        try TxCommentDao(context: tx).create(TxComment(id: "c", taskID: "b", text: ""))
        // Another thread reads meanwhile: it sees the store as before the transaction.
        let seen = Locked<(tasks: [String], comments: Int)?>(nil)
        let reader = Thread {
            seen.withLock { $0 = try? (outside.read().map(\.id), TxCommentDao(context: context).count()) }
        }
        reader.start()
        try waitUntil { seen.withLock { $0 != nil } }
        #expect(seen.withLock { $0?.tasks } == ["a"])
        #expect(seen.withLock { $0?.comments } == 0)
    }
    #expect(try outside.read().map(\.id) == ["b"])
    #expect(try TxCommentDao(context: context).count() == 1)
}

private func nestsAsSavepoint<C: TransactionalStorageContext>(_ context: C) throws {
    try context.transaction { tx in
        try TxTaskDao(context: tx).create(TxTask(id: "outer", project: "p", title: ""))
        #expect(throws: TxFailure.self) {
            try tx.transaction { inner in
                try TxTaskDao(context: inner).create(TxTask(id: "rolled back", project: "p", title: ""))
                #expect(try TxTaskDao(context: inner).count() == 2)
                throw TxFailure()
            }
        }
        try tx.transaction { inner in
            try TxCommentDao(context: inner).create(TxComment(id: "c", taskID: "outer", text: ""))
        }
        #expect(try TxTaskDao(context: tx).read().map(\.id) == ["outer"])
        #expect(try TxCommentDao(context: tx).count() == 1)
    }
    #expect(try TxTaskDao(context: context).read().map(\.id) == ["outer"])
    #expect(try TxCommentDao(context: context).count() == 1)
    // What a nested transaction committed goes when the outer one rolls back.
    #expect(throws: TxFailure.self) {
        try context.transaction { tx in
            try tx.transaction { inner in try TxTaskDao(context: inner).create(TxTask(id: "x", project: "p", title: ""))
            }
            throw TxFailure()
        }
    }
    #expect(try TxTaskDao(context: context).count() == 1)
}

private func refusesEscapedHandle<C: TransactionalStorageContext>(_ context: C) throws {
    let committed = try context.transaction { tx in tx }
    let closed = try #require(throws: StorageError.self) {
        try TxTaskDao(context: committed).create(TxTask(id: "late", project: "p", title: ""))
    }
    #expect(closed.kind == .transactionClosed)
    #expect(throws: StorageError.self) { try committed.count(TxTaskEntity.self) }
    var rolledBack: C?
    #expect(throws: TxFailure.self) {
        try context.transaction { tx in
            rolledBack = tx
            throw TxFailure()
        }
    }
    let error = try #require(throws: StorageError.self) { try rolledBack?.fetchAll(TxTaskEntity.self) }
    #expect(error.kind == .transactionClosed)
    #expect(try context.count(TxTaskEntity.self) == 0)
}

private func observedOnceAfterCommit<C: TransactionalStorageContext>(_ context: C) throws {
    let notifier = try #require(context.changeNotifier)
    let batches = Locked<[[StorageChange]]>([])
    let subscription = notifier.subscribe { changes in batches.withLock { $0.append(changes) } }
    defer { subscription.cancel() }
    try context.transaction { tx in
        try TxTaskDao(context: tx).create(TxTask(id: "t", project: "p", title: ""))
        try TxCommentDao(context: tx).create(TxComment(id: "c", taskID: "t", text: ""))
        try TxTaskDao(context: tx).update(TxTask(id: "t", project: "q", title: ""))
    }
    try TxMarkerDao(context: context).create(TxMarker(id: "after"))
    try waitUntil { batches.withLock { $0.contains { $0.names.contains(TxMarker.entityName) } } }
    let naming = batches.withLock { $0.map(\.names).filter { $0.contains(TxTaskEntity.entityName) } }
    #expect(naming.count == 1)
    #expect(naming.first?.contains(TxCommentEntity.entityName) == true)
}

private func notObservedAfterRollback<C: TransactionalStorageContext>(_ context: C) throws {
    let notifier = try #require(context.changeNotifier)
    let batches = Locked<[[StorageChange]]>([])
    let subscription = notifier.subscribe { changes in batches.withLock { $0.append(changes) } }
    defer { subscription.cancel() }
    #expect(throws: TxFailure.self) {
        try context.transaction { tx in
            try TxTaskDao(context: tx).create(TxTask(id: "t", project: "p", title: ""))
            try TxCommentDao(context: tx).create(TxComment(id: "c", taskID: "t", text: ""))
            throw TxFailure()
        }
    }
    try TxMarkerDao(context: context).create(TxMarker(id: "after"))
    try waitUntil { batches.withLock { $0.contains { $0.names.contains(TxMarker.entityName) } } }
    let named = batches.withLock { $0.flatMap(\.names) }
    #expect(!named.contains(TxTaskEntity.entityName))
    #expect(!named.contains(TxCommentEntity.entityName))
}

private func asyncCommitAndRollback<C: TransactionalStorageContext>(_ context: C) async throws {
    let count = try await context.transaction { tx in
        try await TxTaskDao(context: tx).create(TxTask(id: "t", project: "p", title: ""))
        try await TxCommentDao(context: tx).create(TxComment(id: "c", taskID: "t", text: ""))
        return try await TxTaskDao(context: tx).count(where: #Predicate<TxTask> { $0.project == "p" })
    }
    #expect(count == 1)
    await #expect(throws: TxFailure.self) {
        try await context.transaction { tx in
            try await TxTaskDao(context: tx).erase(id: "t")
            try await TxCommentDao(context: tx).create(TxComment(id: "d", taskID: "t", text: ""))
            #expect(try await TxTaskDao(context: tx).count() == 0)
            throw TxFailure()
        }
    }
    #expect(try await TxTaskDao(context: context).count() == 1)
    #expect(try await TxCommentDao(context: context).read().map(\.id) == ["c"])
    let escaped = try await context.transaction { tx in
        _ = try await TxTaskDao(context: tx).count()
        return tx
    }
    await #expect(throws: StorageError.self) { try await TxTaskDao(context: escaped).count() }
}

// MARK: - Support

extension ContextFactory {
    /// Makes a fresh context, opens it as a `TransactionalStorageContext` and runs `check` on it.
    fileprivate func withTransactional(_ check: (any TransactionalStorageContext) throws -> Void) throws {
        let fresh = try make()
        defer { fresh.cleanUp() }
        try check(try #require(fresh.context as? any TransactionalStorageContext))
    }
}

extension [StorageChange] {
    /// The entity types these changes name (a change naming none, such as another connection's
    /// commit noticed by SQLite's monitor, names nothing).
    fileprivate var names: Set<String> { Set(compactMap(\.entityName)) }
}

/// Waits, without timing the test, for `condition`; fails after a generous hang guard.
private func waitUntil(_ condition: () -> Bool) throws {
    let deadline = Date().addingTimeInterval(30)
    while !condition() {
        if Date() > deadline { throw TxFailure() }
        Thread.sleep(forTimeInterval: 0.002)
    }
}

private struct TxFailure: Error {}

private struct TxTask: Codable, Identifiable, Equatable, Sendable {
    var id: String
    var project: String
    var title: String
}

private struct TxTaskEntity: Storable, Equatable {
    var id: String
    var project: String
    var title: String
    static var indexes: [StorageIndex] { [StorageIndex("project")] }
}

private struct TxComment: Codable, Identifiable, Equatable, Sendable {
    var id: String
    var taskID: String
    var text: String
}

private struct TxCommentEntity: Storable, Equatable {
    var id: String
    var taskID: String
    var text: String
}

private struct TxMarker: Storable, Equatable, Sendable {
    var id: String
}

private typealias TxTaskDao = BaseDao<TxTask, TxTaskEntity>
private typealias TxCommentDao = BaseDao<TxComment, TxCommentEntity>
private typealias TxMarkerDao = BaseDao<TxMarker, TxMarker>
