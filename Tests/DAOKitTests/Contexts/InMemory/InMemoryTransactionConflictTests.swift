import DAOKit
import Testing

/// In memory, a transaction waits for nobody: a writer that changes, meanwhile, a type the
/// transaction also writes makes its commit fail whole; other types do not.
@Suite("In-memory transactions: the first to commit wins, per entity type")
struct InMemoryTransactionConflictTests {
    @Test func aWriteToATypeTheTransactionWroteFailsItsCommitWhole() throws {
        let context = InMemoryStorageContext()
        let error = try #require(throws: StorageError.self) {
            try context.transaction { tx in
                try tx.save([ConflictNote(id: "inside")])
                try tx.save([ConflictTag(id: "inside")])
                try context.save([ConflictNote(id: "outside")])
            }
        }
        #expect(error.code == .transactionConflict)
        #expect(error.entityName == ConflictNote.entityName)
        #expect(try context.fetchAll(ConflictNote.self).map(\.id) == ["outside"])
        #expect(try context.count(ConflictTag.self) == 0)
    }

    @Test func aWriteToAnotherTypeCommitsBesideTheTransaction() throws {
        let context = InMemoryStorageContext()
        try context.transaction { tx in
            try tx.save([ConflictNote(id: "inside")])
            try context.save([ConflictTag(id: "outside")])
            // The transaction had not touched tags yet: it now sees the committed one.
            #expect(try tx.count(ConflictTag.self) == 1)
        }
        #expect(try context.count(ConflictNote.self) == 1)
        #expect(try context.count(ConflictTag.self) == 1)
    }

    @Test func aTypeOnceReadIsNotChangedUnderTheTransaction() throws {
        let context = InMemoryStorageContext()
        try context.save([ConflictNote(id: "a")])
        try context.transaction { tx in
            #expect(try tx.count(ConflictNote.self) == 1)
            try context.save([ConflictNote(id: "b")])
            #expect(try tx.count(ConflictNote.self) == 1)
        }
        #expect(try context.count(ConflictNote.self) == 2)
    }

    @Test func aResetMeanwhileFailsAWritingTransaction() throws {
        let context = InMemoryStorageContext()
        let error = try #require(throws: StorageError.self) {
            try context.transaction { tx in
                try tx.save([ConflictNote(id: "inside")])
                try context.reset()
            }
        }
        #expect(error.code == .transactionConflict)
        #expect(try context.count(ConflictNote.self) == 0)
    }

    @Test func aResetInsideCommitsAsOneStep() throws {
        let context = InMemoryStorageContext()
        try context.save([ConflictNote(id: "old")])
        try context.save([ConflictTag(id: "old")])
        try context.transaction { tx in
            try tx.reset()
            try tx.save([ConflictTag(id: "new")])
            #expect(try tx.count(ConflictNote.self) == 0)
            #expect(try context.count(ConflictNote.self) == 1)
        }
        #expect(try context.count(ConflictNote.self) == 0)
        #expect(try context.fetchAll(ConflictTag.self).map(\.id) == ["new"])
    }
}

private struct ConflictNote: Storable {
    var id: String
}

private struct ConflictTag: Storable {
    var id: String
}
