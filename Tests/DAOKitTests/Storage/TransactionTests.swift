import DAOKit
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

/// The promises of `TransactionalStorageContext` on every shipped context that conforms
/// (`ContextFactory.transactional`): the contract's checks (`TransactionalStorageContextContract`),
/// one test case per context and check, and `async` bodies.
@Suite("Transactions: all or nothing over two types, isolated, observed once")
struct TransactionTests {
    static let factories = ContextFactory.transactional

    @Test(arguments: factories, TransactionalStorageContextContract.checks)
    func transactionsKeepTheContract(_ factory: ContextFactory, _ check: ContractCheck) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try check.run(makeContext: { fresh.context })
    }

    @Test func aContextThatIsNotTransactionalFailsEveryCheck() throws {
        let failures = TransactionalStorageContextContract.checks.flatMap { check in
            (try? check.run(makeContext: { SilentContext() })).map { [] } ?? [check.name]
        }
        #expect(failures == TransactionalStorageContextContract.checks.map(\.name))
    }

    /// A context whose "transaction" runs the body on itself keeps none of the promises but
    /// read-your-writes and the announcement of a commit: the contract says so.
    @Test func aContextThatRunsTheBodyOnItselfFailsTheContract() throws {
        let failed = Set(
            TransactionalStorageContextContract.violations(makeContext: { PassThroughTransactions() }).map(\.check))
        #expect(
            failed.isSuperset(of: [
                "anErrorInTheBodyLeavesNeitherType", "readersOutsideSeeNothingUntilCommit",
                "aNestedTransactionIsASavepoint", "anEscapedHandleIsRefused", "observersNeverHearOfARollback",
            ]))
        #expect(!failed.contains("aTaskAndItsCommentCommitTogether"))
        #expect(!failed.contains("readsInsideSeeTheTransactionsWrites"))
    }

    @Test(arguments: factories) func anAsyncBodyCommitsAndRollsBackAlike(_ factory: ContextFactory) async throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = try #require(fresh.context as? any TransactionalStorageContext)
        try await asyncCommitAndRollback(context)
    }
}

private func asyncCommitAndRollback<C: TransactionalStorageContext>(_ context: C) async throws {
    let count = try await context.transaction { tx in
        try await FixtureTxTaskDao(context: tx).create(FixtureTxTask(id: "t", project: "p", title: ""))
        try await FixtureTxCommentDao(context: tx).create(FixtureTxComment(id: "c", taskID: "t", text: ""))
        return try await FixtureTxTaskDao(context: tx).count(where: #Predicate<FixtureTxTask> { $0.project == "p" })
    }
    #expect(count == 1)
    await #expect(throws: AsyncBodyFailure.self) {
        try await context.transaction { tx in
            try await FixtureTxTaskDao(context: tx).erase(id: "t")
            try await FixtureTxCommentDao(context: tx).create(FixtureTxComment(id: "d", taskID: "t", text: ""))
            #expect(try await FixtureTxTaskDao(context: tx).count() == 0)
            throw AsyncBodyFailure()
        }
    }
    #expect(try await FixtureTxTaskDao(context: context).count() == 1)
    #expect(try await FixtureTxCommentDao(context: context).read().map(\.id) == ["c"])
    let escaped = try await context.transaction { tx in
        _ = try await FixtureTxTaskDao(context: tx).count()
        return tx
    }
    await #expect(throws: StorageError.self) { try await FixtureTxTaskDao(context: escaped).count() }
}

private struct AsyncBodyFailure: Error {}

/// A context that claims transactions but runs every body on itself, writing as it goes.
private final class PassThroughTransactions: TransactionalStorageContext {
    let base = InMemoryStorageContext()
    var changeNotifier: StorageChangeNotifier? { base.changeNotifier }
    func save<E: Storable>(_ entities: [E]) throws { try base.save(entities) }
    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws { try base.save(entities, mode: mode) }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { try base.fetch(type, id: id) }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { try base.fetchAll(type) }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { try base.delete(type, ids: ids) }
    func deleteAll<E: Storable>(_ type: E.Type) throws { try base.deleteAll(type) }
    func count<E: Storable>(_ type: E.Type) throws -> Int { try base.count(type) }
    func transaction<Result>(_ body: (PassThroughTransactions) throws -> Result) throws -> Result { try body(self) }
    func transaction<Result: Sendable>(
        _ body: @Sendable (PassThroughTransactions) async throws -> Result
    ) async throws -> Result { try await body(self) }
}
