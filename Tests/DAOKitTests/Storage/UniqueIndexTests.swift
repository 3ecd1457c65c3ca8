import DAOKitInternals
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

@testable import DAOKit

/// Unique indexes on every context that keeps them (`ContextFactory.keepingUniqueIndexes`): the
/// contract's checks (`UniqueIndexContract`), one test case per context and check; then what the
/// contract leaves to each context: values of other kinds, nested fields, a unique index declared
/// over data that already breaks it, and the error itself.
@Suite("Unique indexes: a second record with the same values is refused, all or nothing")
struct UniqueIndexTests {
    @Test(arguments: ContextFactory.keepingUniqueIndexes, UniqueIndexContract.checks)
    func uniqueIndexesKeepTheContract(_ factory: ContextFactory, _ check: ContractCheck) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try check.run(makeContext: { fresh.context })
    }

    @Test(arguments: ContextFactory.transactionalKeepingUniqueIndexes, UniqueIndexContract.transactionChecks)
    func uniqueIndexesHoldInTransactions(_ factory: ContextFactory, _ check: ContractCheck) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try check.run(makeContext: { fresh.context })
    }

    /// A context that stores what it is given, as a third-party context that knows nothing of
    /// unique indexes would: the contract tells its author what is missing.
    @Test func aContextThatIgnoresUniqueIndexesFailsTheContract() {
        let failed = Set(UniqueIndexContract.violations(makeContext: { IgnoringContext() }).map(\.check))
        #expect(
            failed == [
                "aSecondRecordWithAStoredValueIsRefused", "nilValuesNeverCollide",
                "aBatchThatBreaksAUniqueIndexIsRefusedWhole", "aUniqueIndexOnTwoFieldsRefusesOnlyRecordsEqualInBoth",
                "concurrentCreatesOfOneValueLeaveExactlyOne",
            ])
    }

    @Test func aNonTransactionalContextFailsTheTransactionChecks() {
        for check in UniqueIndexContract.transactionChecks {
            #expect(throws: ContractViolation.self) { try check.run(makeContext: { IgnoringContext() }) }
        }
    }

    /// A transaction takes a value while a writer outside takes it too: whichever commits first
    /// keeps it, and the other fails — the transaction with `transactionConflict` (another writer
    /// changed the type) or `uniqueViolation`, the outside write with `uniqueViolation` — never
    /// both stored. (On SQLite the outside writer waits for the transaction; elsewhere it goes
    /// first.)
    @Test(arguments: ContextFactory.transactionalKeepingUniqueIndexes)
    func aTransactionAndAnOutsideWriterNeverBothTakeAValue(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        guard let context = fresh.context as? any TransactionalStorageContext else {
            Issue.record("\(factory) is not transactional")
            return
        }
        let outside = Locked<Result<Void, any Error>?>(nil)
        let transaction = Result {
            try Self.run(context) { tx in
                try tx.save([Account(id: "b", email: "x")], mode: .insert)
                let writer = Thread {
                    let result = Result { try context.save([Account(id: "c", email: "x")], mode: .insert) }
                    outside.withLock { $0 = result }
                }
                writer.start()
                // Long enough for a writer that need not wait to finish; one that waits (SQLite)
                // finishes after the commit.
                for _ in 0..<200 where outside.withLock({ $0 == nil }) { Thread.sleep(forTimeInterval: 0.001) }
            }
        }
        try waitUntilDone { outside.withLock { $0 != nil } }
        let outsideResult = try #require(outside.withLock { $0 })
        let stored = try context.fetchAll(Account.self).map(\.id)
        #expect(stored.count == 1, "\(stored)")
        switch (transaction, outsideResult) {
        case (.success, .failure(let error)):
            #expect(stored == ["b"])
            #expect((error as? StorageError)?.code == .uniqueViolation, "\(error)")
        case (.failure(let error), .success):
            #expect(stored == ["c"])
            let code = (error as? StorageError)?.code
            #expect(code == .transactionConflict || code == .uniqueViolation, "\(error)")
        default:
            Issue.record("exactly one must succeed: \(transaction), \(outsideResult)")
        }
    }

    private static func run<C: TransactionalStorageContext>(_ context: C, _ body: (any StorageContext) throws -> Void)
        throws
    {
        try context.transaction { tx in try body(tx) }
    }

    private func waitUntilDone(_ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(120)  // only guards against a hang
        while !condition() {
            if Date() > deadline { throw UniqueTestTimeout() }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    // MARK: - Values

    struct Reading: Storable, Equatable {
        static let indexes = [StorageIndex("sensor.id", "value", unique: true)]
        struct Sensor: Codable, Equatable {
            var id: Int
        }
        var id: String
        var sensor: Sensor
        var value: Double
    }

    /// SQLite keeps unique indexes on top-level fields only, and refuses a nested one (its own
    /// tests check that).
    static let nestingFactories = ContextFactory.keepingUniqueIndexes.filter { $0.description != "sqlite(file)" }

    @Test(arguments: nestingFactories)
    func aNestedFieldAndANumberAreCompared(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        try context.save([Reading(id: "a", sensor: .init(id: 1), value: 2.5)])
        try context.save([Reading(id: "b", sensor: .init(id: 2), value: 2.5)])
        try context.save([Reading(id: "c", sensor: .init(id: 1), value: 3)])
        let error = try #require(throws: StorageError.self) {
            try context.save([Reading(id: "d", sensor: .init(id: 1), value: 3.0)])
        }
        #expect(error.code == .uniqueViolation)
        #expect(error.uniqueIndexViolation?.existingKey == "c")
        #expect(try context.count(Reading.self) == 3)
    }

    struct Measure: Storable {
        static let indexes = [StorageIndex("value", unique: true)]
        var id: String
        var value: Double
    }

    /// Except on SQLite, which stores a NaN as the text `NaN` (a NULL would read back as `nil`),
    /// and so keeps one NaN per unique index, as the next test shows.
    @Test(arguments: nestingFactories)
    func notANumberNeverCollides(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([Measure(id: "a", value: .nan), Measure(id: "b", value: .nan)])
        try fresh.context.save([Measure(id: "c", value: -0.0)])
        let error = try #require(throws: StorageError.self) { try fresh.context.save([Measure(id: "d", value: 0.0)]) }
        #expect(error.uniqueIndexViolation?.existingKey == "c")
        #expect(try fresh.context.count(Measure.self) == 3)
    }

    @Test func sqliteKeepsOneNaNPerUniqueIndex() throws {
        let fresh = try ContextFactory.sqliteFile.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([Measure(id: "a", value: .nan)])
        let error = try #require(throws: StorageError.self) { try fresh.context.save([Measure(id: "b", value: .nan)]) }
        #expect(error.uniqueIndexViolation?.existingKey == "a")
        #expect(try fresh.context.count(Measure.self) == 1)
    }

    @Test func equalNumbersOfEveryKindAreOneUniqueValue() {
        let one: [StorageValue] = [.int(1), .uint(1), .double(1.0)]
        #expect(Set(one.compactMap(UniqueScalar.init)).count == 1)
        #expect(UniqueScalar(.double(-0.0)) == UniqueScalar(.int(0)))
        #expect(UniqueScalar(.double(1.5)) != UniqueScalar(.int(1)))
        #expect(UniqueScalar(.uint(1 << 63)) == UniqueScalar(.double(0x1p63)))
        #expect(UniqueScalar(.int(-1)) != UniqueScalar(.uint(1)))
        #expect(UniqueScalar(.double(.nan)) == nil)
        #expect(UniqueScalar(.null) == nil)
        #expect(UniqueScalar.tuple([StorageValue.string("a"), .null]) == nil)
    }

    // MARK: - Data that already breaks the index

    /// The same records as ``Account``, without the unique index: what an app wrote before it
    /// declared the index.
    struct LooseAccount: Storable {
        static var entityName: String { Account.entityName }
        var id: String
        var email: String
    }

    struct Account: Storable {
        static let indexes = [StorageIndex("email", unique: true)]
        var id: String
        var email: String
    }

    @Test(arguments: ContextFactory.keepingUniqueIndexes.filter { $0.description != "memory" })
    func aUniqueIndexOverDuplicatesRefusesWritesNamingTwoOfThem(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        try context.save([LooseAccount(id: "a", email: "x"), LooseAccount(id: "b", email: "x")])
        let error = try #require(throws: StorageError.self) { try context.save([Account(id: "c", email: "y")]) }
        #expect(error.code == .uniqueViolation)
        #expect(Set([error.key, error.uniqueIndexViolation?.existingKey]) == ["a", "b"])
        #expect(try context.count(Account.self) == 2)
        // Once the data is put right, writes go through again.
        try context.save([Account(id: "b", email: "z"), Account(id: "c", email: "y")])
        #expect(try context.count(Account.self) == 3)
    }

    @Test func aLoadedTableOverDuplicatesRefusesWritesNamingTwoOfThem() throws {
        let layout = IndexLayout.of(Account.self)
        var loader = InMemoryTable.Loader(layout: layout, capacity: 2)
        var order: UInt64 = 0
        for account in [Account(id: "a", email: "x"), Account(id: "b", email: "x")] {
            loader.add(account, values: try layout.values(of: account), forKey: account.id, order: &order)
        }
        var table = loader.finish()
        let batch = [(key: "c", values: try layout.values(of: Account(id: "c", email: "y")))]
        let error = try #require(throws: StorageError.self) { try table.checkUnique(batch, entityName: "Account") }
        #expect(error.key == "b")
        #expect(error.uniqueIndexViolation?.existingKey == "a")
    }

    @Test func memoryRefusesAUniqueTypeSharingItsNameWithOtherIndexes() throws {
        let context = InMemoryStorageContext()
        try context.save([LooseAccount(id: "a", email: "x")])
        let error = try #require(throws: StorageError.self) { try context.save([Account(id: "b", email: "x")]) }
        #expect(error.code == .unsupported)
        #expect(try context.count(Account.self) == 1)
    }

    // MARK: - The error

    @Test func theErrorNamesTheEntityBothKeysAndTheFieldsButNoValue() {
        let error = UniqueIndexViolation.error(
            entityName: "Account", key: "u2", index: StorageIndex("region", "handle", unique: true), existingKey: "u1")
        #expect(error.description == #"Account "u2": unique index violated: (region, handle) already held by "u1""#)
        #expect(error.code == .uniqueViolation)
        #expect(error.kind == .uniqueViolation(#"(region, handle) already held by "u1""#))
        #expect(StorageError.Code.uniqueViolation ~= error)
        #expect(StorageError(.duplicateID).uniqueIndexViolation == nil)
        let unknown = UniqueIndexViolation(index: StorageIndex("email", unique: true), existingKey: nil)
        #expect(unknown.description == "(email) already held by another record")
    }

    @Test func anIndexIsUniqueOnlyWhenDeclaredSo() {
        #expect(!StorageIndex("email").isUnique)
        #expect(!StorageIndex(["email"]).isUnique)
        #expect(StorageIndex("email", unique: true).isUnique)
        #expect(StorageIndex(["a", "b"], unique: true).fields == ["a", "b"])
        #expect(StorageIndex("email") != StorageIndex("email", unique: true))
    }
}

private struct UniqueTestTimeout: Error {}

/// A context that stores what it is given, checking ids but no unique index.
private final class IgnoringContext: StorageContext {
    private let inner = InMemoryStorageContext()
    func save<E: Storable>(_ entities: [E]) throws {
        try inner.save(entities.map { IgnoringBox(entity: $0) })
    }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? {
        try inner.fetch(IgnoringBox<E>.self, id: id)?.entity
    }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { try inner.fetchAll(IgnoringBox<E>.self).map(\.entity) }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { try inner.delete(IgnoringBox<E>.self, ids: ids) }
    func deleteAll<E: Storable>(_ type: E.Type) throws { try inner.deleteAll(IgnoringBox<E>.self) }
    func count<E: Storable>(_ type: E.Type) throws -> Int { try inner.count(IgnoringBox<E>.self) }
}

/// An entity stored under its own name without its indexes.
private struct IgnoringBox<E: Storable>: Storable {
    static var entityName: String { E.entityName }
    var entity: E
    var id: E.ID { entity.id }
}
