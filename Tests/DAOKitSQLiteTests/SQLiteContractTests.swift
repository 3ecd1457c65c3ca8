import DAOKit
import DAOKitSQLite
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

@Suite("SQLite contract")
struct SQLiteContractTests {
    @Test("an in-memory database keeps every promise", arguments: StorageContextContract.checks)
    func inMemoryDatabaseKeepsTheContract(_ check: ContractCheck) throws {
        try check.run(makeContext: { try SQLiteStorageContext() })
    }

    @Test("a database file keeps every promise", arguments: StorageContextContract.checks)
    func databaseFileKeepsTheContract(_ check: ContractCheck) throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        try check.run(makeContext: { try database.open() })
    }
}
