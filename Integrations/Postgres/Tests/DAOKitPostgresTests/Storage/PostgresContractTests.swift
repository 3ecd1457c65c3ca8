import DAOKit
import DAOKitPostgres
import DAOKitTesting
import Testing

@Suite("Postgres contract")
struct PostgresContractTests {
    @Test("a schema on the server keeps every promise", arguments: StorageContextContract.checks)
    func schemaKeepsTheContract(_ check: ContractCheck) throws {
        try check.run(makeContext: { try TestServer.context() })
    }
}
