import DAOKit
import DAOKitTestSupport
import DAOKitTesting
import Testing

/// The promises of `VersionedStorageContext` on every shipped context that keeps encoded
/// records: the contract's checks (`VersionedStorageContextContract`), one test case per context
/// and check — and that the contract tells a context that keeps no versions.
@Suite("Entity versions: the versioned context contract on every context that keeps encoded records")
struct VersionedContractTests {
    @Test(
        arguments: [
            ContextFactory.keyValueInMemory, .keyValueUserDefaults, .fileJSON, .filePropertyList, .sqliteFile,
        ], VersionedStorageContextContract.checks)
    func versionsKeepTheContract(_ factory: ContextFactory, _ check: ContractCheck) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try check.run(makeContext: { fresh.context })
    }

    @Test func aContextThatKeepsNoVersionsFailsEveryCheck() throws {
        let failures = VersionedStorageContextContract.checks.flatMap { check in
            (try? check.run(makeContext: { SilentContext() })).map { [] } ?? [check.name]
        }
        #expect(failures == VersionedStorageContextContract.checks.map(\.name))
    }
}
