import DAOKit
import DAOKitInternals
import Foundation

/// What unique indexes promise (see ``UniqueIndexContract``).
extension ContractChecks {
    static let uniqueIndexes: [ContractCheck] = [
        ContractCheck("aSecondRecordWithAStoredValueIsRefused") { context in
            let accounts = FixtureAccountDao(context: context)
            let ada = FixtureAccount(id: "a", email: "ada@example.com")
            try accounts.create(ada)
            try expectViolation("a create with a stored e-mail", key: "b", holder: "a", index: emailIndex) {
                try accounts.create(FixtureAccount(id: "b", email: "ada@example.com"))
            }
            try expectViolation("a persist with a stored e-mail", key: "b", holder: "a", index: emailIndex) {
                try accounts.persist(FixtureAccount(id: "b", email: "ada@example.com"))
            }
            let bob = FixtureAccount(id: "c", email: "bob@example.com")
            try accounts.create(bob)
            try expectViolation("an update to a stored e-mail", key: "c", holder: "a", index: emailIndex) {
                try accounts.update(FixtureAccount(id: "c", email: "ada@example.com"))
            }
            try Expect.equal(try accounts.read().sorted { $0.id < $1.id }, [ada, bob], "accounts after the refusals")
            try Expect.equal(
                try accounts.count(where: #Predicate<FixtureAccount> { $0.email == "ada@example.com" }), 1,
                "accounts holding the e-mail")
        },
        ContractCheck("aRecordSavedAgainWithItsOwnValuesIsNoViolation") { context in
            let accounts = FixtureAccountDao(context: context)
            try accounts.create(FixtureAccount(id: "a", email: "ada@example.com", name: "Ada"))
            try accounts.persist(FixtureAccount(id: "a", email: "ada@example.com", name: "Ada L."))
            try accounts.update(FixtureAccount(id: "a", email: "ada@example.com", name: "Ada Lovelace"))
            try accounts.persist([
                FixtureAccount(id: "a", email: "ada@example.com", name: "Countess"),
                FixtureAccount(id: "b", email: "bob@example.com"),
            ])
            try Expect.equal(try accounts.read(id: "a")?.name, "Countess", "the account saved again")
            try Expect.equal(try accounts.count(), 2, "accounts stored")
        },
        ContractCheck("nilValuesNeverCollide") { context in
            let accounts = FixtureAccountDao(context: context)
            try accounts.create(FixtureAccount(id: "a", email: nil))
            try accounts.create(FixtureAccount(id: "b", email: nil))
            try accounts.persist([FixtureAccount(id: "c", email: nil), FixtureAccount(id: "d", email: nil)])
            try Expect.equal(try accounts.count(), 4, "accounts without an e-mail")
            // A nil value frees nothing else: the next account with an address still collides.
            try accounts.update(FixtureAccount(id: "a", email: "ada@example.com"))
            try expectViolation("a second account with the address", key: "b", holder: "a", index: emailIndex) {
                try accounts.update(FixtureAccount(id: "b", email: "ada@example.com"))
            }
        },
        ContractCheck("aBatchThatBreaksAUniqueIndexIsRefusedWhole") { context in
            let accounts = FixtureAccountDao(context: context)
            let ada = FixtureAccount(id: "a", email: "ada@example.com")
            try accounts.create(ada)
            try expectViolation("a batch with a stored e-mail last", key: "c", holder: "a", index: emailIndex) {
                try accounts.persist([
                    FixtureAccount(id: "b", email: "bob@example.com"),
                    FixtureAccount(id: "a", email: "ada@example.com", name: "kept value"),
                    FixtureAccount(id: "c", email: "ada@example.com"),
                ])
            }
            try expectViolation("a batch of two new accounts with one e-mail", key: "e", holder: "d", index: emailIndex)
            {
                try accounts.persist([
                    FixtureAccount(id: "d", email: "dan@example.com"),
                    FixtureAccount(id: "e", email: "dan@example.com"),
                ])
            }
            try Expect.equal(try accounts.read(), [ada], "accounts after the refused batches")
        },
        ContractCheck("aFreedValueCanBeTakenAgain") { context in
            let accounts = FixtureAccountDao(context: context)
            try accounts.create(FixtureAccount(id: "a", email: "ada@example.com"))
            try accounts.erase(id: "a")
            try accounts.create(FixtureAccount(id: "b", email: "ada@example.com"))
            try accounts.update(FixtureAccount(id: "b", email: "bea@example.com"))
            try accounts.create(FixtureAccount(id: "c", email: "ada@example.com"))
            try accounts.erase(where: #Predicate<FixtureAccount> { $0.email == "bea@example.com" })
            try accounts.persist(FixtureAccount(id: "d", email: "bea@example.com"))
            try Expect.equal(
                try accounts.read().map { "\($0.id)=\($0.email ?? "")" }.sorted(),
                ["c=ada@example.com", "d=bea@example.com"], "accounts after each value was freed and taken")
        },
        ContractCheck("recordsOfOneBatchMaySwapValues") { context in
            let accounts = FixtureAccountDao(context: context)
            try accounts.persist([
                FixtureAccount(id: "a", email: "ada@example.com"), FixtureAccount(id: "b", email: "bob@example.com"),
            ])
            try accounts.persist([
                FixtureAccount(id: "a", email: "bob@example.com"), FixtureAccount(id: "b", email: "ada@example.com"),
            ])
            try Expect.equal(
                try accounts.read().map { "\($0.id)=\($0.email ?? "")" }.sorted(),
                ["a=bob@example.com", "b=ada@example.com"], "accounts after the swap")
        },
        ContractCheck("aUniqueIndexOnTwoFieldsRefusesOnlyRecordsEqualInBoth") { context in
            let accounts = FixtureAccountDao(context: context)
            try accounts.create(FixtureAccount(id: "a", email: nil, region: "eu", handle: "ada"))
            try accounts.create(FixtureAccount(id: "b", email: nil, region: "us", handle: "ada"))
            try accounts.create(FixtureAccount(id: "c", email: nil, region: "eu", handle: "bob"))
            try expectViolation("a handle taken in its region", key: "d", holder: "a", index: handleIndex) {
                try accounts.create(FixtureAccount(id: "d", email: nil, region: "eu", handle: "ada"))
            }
            try Expect.equal(try accounts.count(), 3, "accounts stored")
        },
        ContractCheck("concurrentCreatesOfOneValueLeaveExactlyOne") { context in
            let accounts = FixtureAccountDao(context: context)
            let outcomes = Locked<[Result<Void, any Error>]>([])
            let threads = (0..<8).map { number in
                Thread {
                    let outcome = Result {
                        try accounts.create(FixtureAccount(id: "t\(number)", email: "same@example.com"))
                    }
                    outcomes.withLock { $0.append(outcome) }
                }
            }
            for thread in threads { thread.start() }
            try waitForThreads("the 8 writers") { outcomes.withLock { $0.count == 8 } }
            var created = 0
            for outcome in outcomes.withLock({ $0 }) {
                switch outcome {
                case .success: created += 1
                case .failure(let error):
                    try Expect.equal(
                        (error as? StorageError)?.code, .uniqueViolation, "the error of a writer that lost: \(error)")
                }
            }
            try Expect.equal(created, 1, "writers whose create succeeded")
            try Expect.equal(try accounts.count(), 1, "accounts stored")
        },
    ]

    static let uniqueIndexTransactions: [ContractCheck] = [
        uniqueTransactionCheck("aTransactionThatBreaksAUniqueIndexKeepsNothing") { context in
            try refusesViolatingTransaction(context)
        },
        uniqueTransactionCheck("aTransactionMayFreeAValueAndTakeItAgain") { context in
            try freesAndTakesInTransaction(context)
        },
    ]

    private static let emailIndex = StorageIndex("email", unique: true)
    private static let handleIndex = StorageIndex("region", "handle", unique: true)

    /// Runs `body`, which must throw ``StorageError/Code/uniqueViolation`` naming the account
    /// entity, `key` as the refused record, `holder` as the one holding the values and `index`.
    private static func expectViolation(
        _ what: String, key: String, holder: String, index: StorageIndex,
        file: StaticString = #fileID, line: UInt = #line, _ body: () throws -> Void
    ) throws {
        let error = try Expect.failure(what, file: file, line: line, matching: { $0 is StorageError }, body)
        let storageError = error as! StorageError  // checked by `matching`
        try Expect.equal(
            storageError.code, .uniqueViolation, "\(what): error code (\(storageError))", file: file, line: line)
        try Expect.equal(
            storageError.entityName, FixtureAccountEntity.entityName, "\(what): entity", file: file, line: line)
        try Expect.equal(storageError.key, key, "\(what): the refused record's key", file: file, line: line)
        try Expect.equal(
            storageError.uniqueIndexViolation?.existingKey, holder, "\(what): the holder's key", file: file, line: line)
        try Expect.equal(storageError.uniqueIndexViolation?.index, index, "\(what): the index", file: file, line: line)
    }

    private static func refusesViolatingTransaction<C: TransactionalStorageContext>(_ context: C) throws {
        let ada = FixtureAccount(id: "a", email: "ada@example.com")
        try FixtureAccountDao(context: context).create(ada)
        try expectViolation(
            "a transaction whose last create takes a stored e-mail", key: "c", holder: "a", index: emailIndex
        ) {
            try context.transaction { tx in
                try FixtureTxTaskDao(context: tx).create(FixtureTxTask(id: "t", project: "p", title: ""))
                try FixtureAccountDao(context: tx).create(FixtureAccount(id: "b", email: "bob@example.com"))
                try FixtureAccountDao(context: tx).create(FixtureAccount(id: "c", email: "ada@example.com"))
            }
        }
        try expectViolation("a transaction taking one new e-mail twice", key: "e", holder: "d", index: emailIndex) {
            try context.transaction { tx in
                try FixtureAccountDao(context: tx).create(FixtureAccount(id: "d", email: "dan@example.com"))
                try FixtureAccountDao(context: tx).create(FixtureAccount(id: "e", email: "dan@example.com"))
            }
        }
        try Expect.equal(
            try FixtureAccountDao(context: context).read(), [ada], "accounts after the refused transactions")
        try Expect.equal(try FixtureTxTaskDao(context: context).count(), 0, "tasks after the refused transactions")
    }

    private static func freesAndTakesInTransaction<C: TransactionalStorageContext>(_ context: C) throws {
        try FixtureAccountDao(context: context).create(FixtureAccount(id: "a", email: "ada@example.com"))
        try context.transaction { tx in
            let accounts = FixtureAccountDao(context: tx)
            try accounts.update(FixtureAccount(id: "a", email: "old-ada@example.com"))
            try accounts.create(FixtureAccount(id: "b", email: "ada@example.com"))
            try expectViolation("a create inside, of the value just taken", key: "c", holder: "b", index: emailIndex) {
                try accounts.create(FixtureAccount(id: "c", email: "ada@example.com"))
            }
        }
        try Expect.equal(
            try FixtureAccountDao(context: context).read().map { "\($0.id)=\($0.email ?? "")" }.sorted(),
            ["a=old-ada@example.com", "b=ada@example.com"], "accounts after the commit")
    }

    /// A check of a context that must be a ``TransactionalStorageContext``.
    private static func uniqueTransactionCheck(
        _ name: String, _ body: @escaping @Sendable (any TransactionalStorageContext) throws -> Void
    ) -> ContractCheck {
        ContractCheck(name) { context in
            guard let transactional = context as? any TransactionalStorageContext else {
                throw ExpectationFailure(
                    message: "\(type(of: context)) is not a TransactionalStorageContext", location: name)
            }
            try body(transactional)
        }
    }

    /// Waits until `condition` holds, failing after a generous deadline that only guards
    /// against a hang.
    private static func waitForThreads(_ what: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(120)
        while !condition() {
            if Date() > deadline {
                throw ExpectationFailure(message: "\(what) did not finish", location: "waitForThreads")
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
    }
}
