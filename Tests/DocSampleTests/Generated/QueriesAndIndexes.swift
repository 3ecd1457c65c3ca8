// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/QueriesAndIndexes.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/QueriesAndIndexes.md:104
private struct Account: Codable, Identifiable, Equatable {
    var id: String
    var email: String?
}

// Sources/DAOKit/DAOKit.docc/QueriesAndIndexes.md:109
private struct AccountEntity: Storable {
    static let indexes = [StorageIndex("email", unique: true)]
    var id: String
    var email: String?
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/QueriesAndIndexes.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/QueriesAndIndexes.md: its samples compile and run")
func queriesAndIndexesSamples() throws {
    // Sources/DAOKit/DAOKit.docc/QueriesAndIndexes.md:102
    let accounts = BaseDao<Account, AccountEntity>(context: InMemoryStorageContext())
    try accounts.create(Account(id: "u1", email: "ada@example.com"))
    var refusal: StorageError?
    do {
        try accounts.create(Account(id: "u2", email: "ada@example.com"))
    } catch let error as StorageError where error.code == .uniqueViolation {
        refusal = error  // key "u2"; uniqueIndexViolation?.existingKey "u1"
    }
    let holder = refusal?.uniqueIndexViolation?.existingKey
    // Every top-level constant and variable of the samples, read once.
    _ = accounts
    _ = refusal
    _ = holder
}
