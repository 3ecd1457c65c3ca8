import DAOKit
import Foundation
import Testing

/// `BaseDao` as an extension point: a subclass can wrap any method (they are `open`) and add its
/// own queries built on the public ones.
@Suite("BaseDao subclasses")
struct BaseDaoSubclassTests {
    struct Note: Codable, Identifiable, Equatable {
        var id: Int
        var text: String
        var pinned: Bool
    }

    struct NoteEntity: Storable {
        var id: Int
        var text: String
        var pinned: Bool
    }

    struct EmptyText: Error {}

    /// Refuses empty notes, whichever write method is used.
    final class ValidatingDao: BaseDao<Note, NoteEntity>, @unchecked Sendable {
        override func persist(_ domain: Note) throws {
            guard !domain.text.isEmpty else { throw EmptyText() }
            try super.persist(domain)
        }

        override func persist(_ domains: [Note]) throws {
            guard domains.allSatisfy({ !$0.text.isEmpty }) else { throw EmptyText() }
            try super.persist(domains)
        }
    }

    /// Adds a query of its own.
    final class PinnedDao: BaseDao<Note, NoteEntity>, @unchecked Sendable {
        func pinned() throws -> [Note] {
            try read(where: #Predicate { $0.pinned }, sortedBy: [SortDescriptor(\.id)])
        }
    }

    @Test func anOverriddenPersistValidatesBeforeAnythingIsWritten() throws {
        let dao = ValidatingDao(context: InMemoryStorageContext())
        try dao.persist(Note(id: 1, text: "kept", pinned: false))
        #expect(throws: EmptyText.self) { try dao.persist(Note(id: 2, text: "", pinned: false)) }
        #expect(throws: EmptyText.self) {
            try dao.persist([Note(id: 3, text: "ok", pinned: false), Note(id: 4, text: "", pinned: true)])
        }
        #expect(try dao.read().map(\.id) == [1])
    }

    @Test func theOverrideRunsWhenCalledThroughTheBaseClass() throws {
        let dao: BaseDao<Note, NoteEntity> = ValidatingDao(context: InMemoryStorageContext())
        #expect(throws: EmptyText.self) { try dao.persist(Note(id: 2, text: "", pinned: false)) }
        #expect(try dao.count() == 0)
    }

    @Test func aSubclassQueryReturnsWhatItSelects() throws {
        let dao = PinnedDao(context: InMemoryStorageContext())
        try dao.persist([
            Note(id: 3, text: "c", pinned: true), Note(id: 1, text: "a", pinned: true),
            Note(id: 2, text: "b", pinned: false),
        ])
        #expect(try dao.pinned().map(\.id) == [1, 3])
    }
}
