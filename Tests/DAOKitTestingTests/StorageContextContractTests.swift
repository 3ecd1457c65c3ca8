import DAOKit
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

@Suite("StorageContext contract")
struct StorageContextContractTests {
    @Test(
        "every context of the core module keeps every promise", arguments: ContextFactory.core,
        StorageContextContract.checks)
    func contextKeepsTheContract(_ factory: ContextFactory, _ check: ContractCheck) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try check.run(makeContext: { fresh.context })
    }

    @Test func verifyPassesForAContextThatKeepsTheContract() throws {
        try StorageContextContract.verify(makeContext: { InMemoryStorageContext() })
        #expect(StorageContextContract.violations(makeContext: { InMemoryStorageContext() }).isEmpty)
    }

    @Test func verifyListsEveryCheckABrokenContextFails() throws {
        let error = try #require(throws: ContractViolation.self) {
            try StorageContextContract.verify(makeContext: { ForgetfulDeleteContext() })
        }
        let failed = Set(error.failures.map(\.check))
        #expect(failed.contains("deleteRemovesTheGivenIDsAndIgnoresUnknownOnes"))
        #expect(failed.contains("deleteAllRemovesOnlyThatType"))
        #expect(!failed.contains("savedEntitiesReadBack"))
        #expect(error.description.hasPrefix("\(error.failures.count) storage-context contract checks failed:"))
        let deleteFailure = try #require(
            error.failures.first { $0.check == "deleteRemovesTheGivenIDsAndIgnoresUnknownOnes" })
        #expect(deleteFailure.message.contains("expected"))
        #expect(deleteFailure.location.hasPrefix("ContractChecks+Basics.swift:"))
    }

    @Test func aContextThatCannotBeCreatedIsAViolationNamingTheCheck() throws {
        struct NoDisk: Error {}
        let check = try #require(StorageContextContract.checks.first)
        let error = try #require(throws: ContractViolation.self) {
            try check.run(makeContext: { throw NoDisk() })
        }
        #expect(error.failures.count == 1)
        #expect(error.failures.first?.check == check.name)
        #expect(error.failures.first?.message.contains("could not create the context") == true)
    }

    @Test func anUnexpectedErrorFromTheContextIsAViolation() throws {
        let check = try #require(StorageContextContract.checks.first { $0.name == "savedEntitiesReadBack" })
        let error = try #require(throws: ContractViolation.self) {
            try check.run(makeContext: { FailingContext() })
        }
        #expect(error.failures.first?.message.contains("unexpected error") == true)
    }

    @Test func checkNamesAreUniqueAndStateAProperty() {
        let names = StorageContextContract.checks.map(\.name)
        #expect(Set(names).count == names.count)
        #expect(names.allSatisfy { $0.first?.isLowercase == true && !$0.contains(" ") })
        #expect(names.count >= 20)
    }
}

/// A context that pretends to delete: the contract must catch it.
private final class ForgetfulDeleteContext: StorageContext {
    private let inner = InMemoryStorageContext()
    func save<E: Storable>(_ entities: [E]) throws { try inner.save(entities) }
    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws { try inner.save(entities, mode: mode) }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { try inner.fetch(type, id: id) }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { try inner.fetchAll(type) }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws {}
    func deleteAll<E: Storable>(_ type: E.Type) throws {}
    func count<E: Storable>(_ type: E.Type) throws -> Int { try inner.count(type) }
}

/// A context whose every operation fails.
private final class FailingContext: StorageContext {
    struct Broken: Error {}
    func save<E: Storable>(_ entities: [E]) throws { throw Broken() }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { throw Broken() }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { throw Broken() }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { throw Broken() }
    func deleteAll<E: Storable>(_ type: E.Type) throws { throw Broken() }
    func count<E: Storable>(_ type: E.Type) throws -> Int { throw Broken() }
}
