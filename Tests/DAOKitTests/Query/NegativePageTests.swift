import DAOKit
import Foundation
import Testing

/// A limit or offset passed through from a request (`GET /tasks?offset=-1`) reaches the caller as
/// `StorageError.Code.invalidQuery` on every entry point: nothing traps, nothing is read.
@Suite("A negative page throws invalidQuery")
struct NegativePageTests {
    private func dao() throws -> LiveNoteDao {
        let dao = LiveNoteDao(context: InMemoryStorageContext())
        try dao.persist([note("a", 1), note("b", 2)])
        return dao
    }

    @Test func theAsyncReadThrows() async throws {
        let dao = try dao()
        let error = try await #require(throws: StorageError.self) { try await dao.read(limit: 1, offset: -1) }
        #expect(error.kind == .invalidQuery("offset -1 is negative"))
        #expect(error.entityName == LiveNoteEntity.entityName)
        await #expect(throws: StorageError.self) { try await dao.read(where: #Predicate { $0.number > 0 }, limit: -2) }
        #expect(try await dao.read(sortedBy: [SortDescriptor(\.number)], limit: 1, offset: 1) == [note("b", 2)])
    }

    @Test func anObservationEndsWithTheErrorBeforeAnyElement() async throws {
        let dao = try dao()
        for (limit, offset) in [(nil, -1), (Int?.some(-1), 0)] {
            var delivered: [[LiveNote]] = []
            let error = try await #require(throws: StorageError.self) {
                for try await result in dao.observe(limit: limit, offset: offset) { delivered.append(result) }
            }
            #expect(error.code == .invalidQuery)
            #expect(delivered.isEmpty)
        }
    }

    @Test func storageQueryApplyThrows() throws {
        let entities = [LiveNoteEntity(id: "a", text: "", number: 1)]
        let error = try #require(throws: StorageError.self) { try StorageQuery(offset: -5).apply(to: entities) }
        #expect(error.description == "\(LiveNoteEntity.entityName): invalid query (offset -5 is negative)")
        #expect(throws: StorageError.self) { try StorageQuery(limit: -1).validate() }
        try StorageQuery(limit: 0, offset: Int.max).validate()
    }
}
