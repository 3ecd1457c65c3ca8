import DAOKit
import DAOKitPostgres
import Foundation
import Testing

/// PostgreSQL does not keep unique indexes yet: an entity that declares one is refused before
/// anything is written, never stored unchecked.
@Suite("Postgres refuses unique indexes it does not keep")
struct PostgresUniqueIndexTests {
    struct Account: Storable {
        static let indexes = [StorageIndex("email", unique: true)]
        var id: String
        var email: String
    }

    @Test func anEntityWithAUniqueIndexIsRefusedAndNothingIsStored() throws {
        let context = try TestServer.context()
        defer { context.close() }
        let error = try #require(throws: StorageError.self) { try context.save([Account(id: "a", email: "x")]) }
        #expect(error.code == .unsupported)
        #expect(error.kind.detail?.contains("(email)") == true)
        #expect(try context.count(Account.self) == 0)
    }
}
