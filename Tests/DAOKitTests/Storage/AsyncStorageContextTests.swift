import DAOKit
import DAOKitTesting
import Foundation
import Testing

/// BaseDao's `async` overloads await an ``AsyncStorageContext``'s own `async` methods instead of
/// running the synchronous ones on DAOKit's blocking threads.
@Suite("Async storage context")
struct AsyncStorageContextTests {
    @Test func asyncOverloadsCallTheContextsAsyncMethodsAndNeverItsSynchronousOnes() async throws {
        let context = AsyncOnlyContext()
        let notes = BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: context)
        try await notes.create(FixtureNoteEntity(id: "a", body: "one"))
        try await notes.persist([FixtureNoteEntity(id: "b", body: "two")])
        try await notes.update(FixtureNoteEntity(id: "b", body: "three"))
        #expect(try await notes.read(id: "b") == FixtureNoteEntity(id: "b", body: "three"))
        #expect(try await notes.read().count == 2)
        #expect(try await notes.count() == 2)
        try await notes.erase(id: "a")
        #expect(try await notes.storedIDs() == ["b"])
        try await notes.erase()
        #expect(try await notes.count() == 0)
        #expect(context.synchronousCalls.value == 0)
        #expect(context.asynchronousCalls.value == 10)
    }

    @Test func aDuplicateCreateThroughTheAsyncPathIsTheContextsError() async throws {
        let notes = BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: AsyncOnlyContext())
        try await notes.create(FixtureNoteEntity(id: "a", body: "one"))
        let error = try await #require(throws: StorageError.self) {
            try await notes.create(FixtureNoteEntity(id: "a", body: "two"))
        }
        #expect(error.kind == .duplicateID)
    }
}
