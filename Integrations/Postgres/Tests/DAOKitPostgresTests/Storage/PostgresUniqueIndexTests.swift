import DAOKit
import DAOKitPostgres
import DAOKitTesting
import Foundation
import Testing

/// Unique indexes on PostgreSQL: the contract's checks (`UniqueIndexContract`), then what the
/// server's index compares — values as Swift compares them, at any length — and what the contract
/// leaves to each context: two instances taking one value at once, data that already breaks a
/// newly unique index, a unique index on a nested field.
@Suite("Postgres unique indexes: a second record with the same values is refused, all or nothing")
struct PostgresUniqueIndexTests {
    struct Account: Storable {
        static let indexes = [StorageIndex("email", unique: true)]
        var id: String
        var email: String?
    }

    struct Reading: Storable {
        static let indexes = [StorageIndex("value", unique: true)]
        var id: String
        var value: Double
    }

    /// The same type as `Account`, stored under its entity name, without the unique index: an
    /// earlier release that wrote duplicates.
    struct UncheckedAccount: Storable {
        static let entityName = Account.entityName
        var id: String
        var email: String?
    }

    struct Nested: Codable, Hashable, Sendable {
        var email: String
    }

    struct NestedAccount: Storable {
        static let indexes = [StorageIndex("contact.email", unique: true)]
        var id: String
        var contact: Nested
    }

    @Test(arguments: UniqueIndexContract.checks)
    func aSchemaOnTheServerKeepsTheContract(_ check: ContractCheck) throws {
        try check.run(makeContext: { try TestServer.context() })
    }

    @Test(arguments: UniqueIndexContract.transactionChecks)
    func transactionsKeepTheContract(_ check: ContractCheck) throws {
        try check.run(makeContext: { try TestServer.context() })
    }

    @Test func canonicallyEquivalentStringsCollideAsSwiftComparesThem() throws {
        let context = try TestServer.context()
        defer { context.close() }
        try context.save([Account(id: "a", email: "caf\u{E9}@example.com")])
        let error = try #require(throws: StorageError.self) {
            try context.save([Account(id: "b", email: "cafe\u{301}@example.com")])
        }
        #expect(error.code == .uniqueViolation)
        #expect(error.key == "b")
        #expect(error.uniqueIndexViolation?.existingKey == "a")
        try context.save([Account(id: "c", email: "Caf\u{E9}@example.com")])
        #expect(try context.count(Account.self) == 2, "case differs: another value")
    }

    @Test func valuesLongerThanAnIndexEntryAreKeptUnique() throws {
        let context = try TestServer.context()
        defer { context.close() }
        let long = String(repeating: "x", count: 10_000)
        try context.save([Account(id: "a", email: long), Account(id: "b", email: long + "y")])
        let error = try #require(throws: StorageError.self) { try context.save([Account(id: "c", email: long)]) }
        #expect(error.code == .uniqueViolation)
        #expect(error.uniqueIndexViolation?.existingKey == "a")
        #expect(try context.count(Account.self) == 2)
    }

    @Test func numbersCollideByValueAndNaNNeverDoes() throws {
        let context = try TestServer.context()
        defer { context.close() }
        try context.save([Reading(id: "zero", value: 0), Reading(id: "nan", value: .nan)])
        let negativeZero = try #require(throws: StorageError.self) {
            try context.save([Reading(id: "minus", value: -0.0)])
        }
        #expect(negativeZero.uniqueIndexViolation?.existingKey == "zero", "-0 == 0 in Swift")
        try context.save([Reading(id: "nan2", value: .nan), Reading(id: "inf", value: .infinity)])
        let infinity = try #require(throws: StorageError.self) {
            try context.save([Reading(id: "inf2", value: .infinity)])
        }
        #expect(infinity.uniqueIndexViolation?.existingKey == "inf")
        try context.save([Reading(id: "half", value: 0.5), Reading(id: "one", value: 1)])
        let one = try #require(throws: StorageError.self) { try context.save([Reading(id: "one2", value: 1.0)]) }
        #expect(one.uniqueIndexViolation?.existingKey == "one")
        #expect(try context.count(Reading.self) == 6)
    }

    @Test func twoInstancesTakingOneValueAtOnceLeaveExactlyOne() throws {
        let schema = TestServer.freshSchema()
        let contexts = [try TestServer.context(schema: schema), try TestServer.context(schema: schema)]
        defer { contexts.forEach { $0.close() } }
        try contexts[0].save([Account(id: "seed", email: nil)])
        for round in 0..<20 {
            let outcomes = PgTxLocked<[Result<Void, StorageError>]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { instance in
                let result: Result<Void, StorageError>
                do {
                    try contexts[instance].save([Account(id: "r\(round)-\(instance)", email: "r\(round)@x")])
                    result = .success(())
                } catch let error as StorageError {
                    result = .failure(error)
                } catch {
                    result = .failure(StorageError(.io("\(error)"), entityName: nil))
                }
                outcomes.withLock { $0.append(result) }
            }
            let results = outcomes.withLock { $0 }
            let refused = results.compactMap { result -> StorageError? in
                if case .failure(let error) = result { return error }
                return nil
            }
            #expect(refused.count == 1, "round \(round): \(results)")
            #expect(refused.allSatisfy { $0.code == .uniqueViolation }, "round \(round): \(refused)")
            let holders = try contexts[1].fetchAll(Account.self).filter { $0.email == "r\(round)@x" }
            #expect(holders.count == 1, "round \(round)")
        }
    }

    @Test func dataThatAlreadyBreaksANewUniqueIndexFailsTheNextWriteNamingTwoRecords() throws {
        let schema = TestServer.freshSchema()
        let earlier = try TestServer.context(schema: schema)
        defer { earlier.close() }
        try earlier.save([
            UncheckedAccount(id: "a", email: "same"), UncheckedAccount(id: "b", email: "same"),
        ])
        let context = try TestServer.context(schema: schema)
        defer { context.close() }
        let error = try #require(throws: StorageError.self) { try context.save([Account(id: "c", email: "other")]) }
        #expect(error.code == .uniqueViolation, "\(error)")
        #expect(error.key == "b")
        #expect(error.uniqueIndexViolation?.existingKey == "a")
        #expect(try context.fetch(Account.self, id: "c") == nil, "nothing written")
        try earlier.delete(UncheckedAccount.self, ids: ["b"])
        try context.save([Account(id: "c", email: "other")])
        #expect(throws: StorageError.self) { try context.save([Account(id: "d", email: "same")]) }
    }

    @Test func aUniqueIndexOnANestedFieldIsRefusedAndNothingIsStored() throws {
        let context = try TestServer.context()
        defer { context.close() }
        let error = try #require(throws: StorageError.self) {
            try context.save([NestedAccount(id: "a", contact: Nested(email: "x"))])
        }
        #expect(error.code == .unsupported)
        #expect(error.kind.detail?.contains("contact.email") == true, "\(error)")
        #expect(try context.count(NestedAccount.self) == 0)
    }
}
