// Storage-only fields of an entity (fields the domain type lacks), and entity names: what works,
// what does not, and what every persist does to them (the DAO article, "Storage-only fields and
// entity names", states these rules).
import DAOKit
import Foundation
import Testing

enum StorageOnlyFields {
    /// The app's task: no storage bookkeeping.
    struct Task: Codable, Identifiable, Equatable {
        var id: Int
        var title: String
    }

    /// An optional storage-only field: absent from the domain value, `nil` in the entity.
    struct TaskEntity: Storable {
        static let entityName = "Task"  // explicit: renaming the type keeps the records
        var id: Int
        var title: String
        var syncedAt: Date?  // storage-only: works as it is
    }

    /// A non-optional storage-only field needs its own `init(from:)` that supplies the default.
    final class RevisedTaskEntity: Storable {
        static let entityName = "RevisedTask"
        var id = 0
        var title = ""
        var revision = 0  // storage-only, with a default

        enum CodingKeys: String, CodingKey { case id, title, revision }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(Int.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            revision = try container.decodeIfPresent(Int.self, forKey: .revision) ?? 0
        }
    }

    /// What does not work: a defaulted field with the synthesized `init(from:)`, which requires
    /// every key whatever its default.
    final class DefaultedTaskEntity: Storable {
        static let entityName = "DefaultedTask"
        var id = 0
        var title = ""
        var revision = 0
    }
}

extension StorageOnlyFields {
    @Suite("Storage-only fields are kept, defaulted or refused as documented")
    struct StorageOnlyFieldTests {
        @Test func anOptionalStorageOnlyFieldIsNilAfterPersist() throws {
            let context = InMemoryStorageContext()
            let tasks = BaseDao<Task, TaskEntity>(context: context)
            try tasks.persist(Task(id: 1, title: "Write"))
            #expect(try context.fetch(TaskEntity.self, id: 1)?.syncedAt == nil)
            #expect(try tasks.read(id: 1) == Task(id: 1, title: "Write"))
        }

        @Test func aStorageOnlyFieldDecodedWithDecodeIfPresentGetsItsDefaultOnEveryPersist() throws {
            let context = InMemoryStorageContext()
            let tasks = BaseDao<Task, RevisedTaskEntity>(context: context)
            try tasks.persist(Task(id: 1, title: "Write"))
            // Set by storage code, through the context…
            let stored = try #require(try context.fetch(RevisedTaskEntity.self, id: 1))
            stored.revision = 7
            try context.save([stored])
            #expect(try context.fetch(RevisedTaskEntity.self, id: 1)?.revision == 7)
            // …and reset by the next persist, which builds the entity from the domain value.
            try tasks.persist(Task(id: 1, title: "Rewrite"))
            #expect(try context.fetch(RevisedTaskEntity.self, id: 1)?.revision == 0)
        }

        @Test func aDefaultedFieldWithTheSynthesizedDecoderFailsAtPersistNamingTheField() throws {
            let tasks = BaseDao<Task, DefaultedTaskEntity>(context: InMemoryStorageContext())
            let error = try #require(throws: MappingError.self) { try tasks.persist(Task(id: 1, title: "Write")) }
            #expect(error.kind == .keyNotFound)
            #expect(error.path == "revision")
        }

        @Test func theDefaultEntityNameIsTheTypeNameSoRenamingATypeLosesItsRecords() throws {
            struct NoteV1: Storable { var id: Int }
            struct NoteV2: Storable { var id: Int }
            let context = InMemoryStorageContext()
            try context.save([NoteV1(id: 1)])
            #expect(try context.count(NoteV2.self) == 0)
            #expect(TaskEntity.entityName == "Task")
        }
    }
}
