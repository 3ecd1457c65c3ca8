import DAOKit
import Foundation
import Testing

/// A subclass's override of a synchronous `BaseDao` method holds whichever entry point a caller
/// uses: the synchronous method, its `async` overload, an observation's re-runs and the salvage
/// methods — on a context that blocks and on an `AsyncStorageContext`, which `BaseDao` itself
/// awaits directly.
@Suite("Overrides hold on every path")
struct OverridesOnEveryPathTests {
    struct Note: Codable, Identifiable, Equatable {
        var id: Int
        var text: String
    }

    struct NoteEntity: Storable {
        var id: Int
        var text: String
    }

    struct EmptyText: Error {}

    /// Refuses empty notes in every write method, and records every synchronous method it runs.
    final class ValidatingDao: BaseDao<Note, NoteEntity>, @unchecked Sendable {
        private let lock = NSLock()
        private var log: [String] = []

        var calls: [String] { lock.withLock { log } }

        private func record(_ call: String) { lock.withLock { log.append(call) } }

        private func validate(_ notes: [Note]) throws {
            guard notes.allSatisfy({ !$0.text.isEmpty }) else { throw EmptyText() }
        }

        override func create(_ domain: Note) throws {
            record("create")
            try validate([domain])
            try super.create(domain)
        }
        override func update(_ domain: Note) throws {
            record("update")
            try validate([domain])
            try super.update(domain)
        }
        override func persist(_ domain: Note) throws {
            record("persist")
            try validate([domain])
            try super.persist(domain)
        }
        override func persist(_ domains: [Note]) throws {
            record("persist[]")
            try validate(domains)
            try super.persist(domains)
        }
        override func read(id: Int) throws -> Note? {
            record("read(id:)")
            return try super.read(id: id)
        }
        override func read() throws -> [Note] {
            record("read()")
            return try super.read()
        }
        override func read(
            where predicate: Predicate<Note>?, sortedBy: [SortDescriptor<Note>], limit: Int?, offset: Int
        ) throws -> [Note] {
            record("read(where:)")
            return try super.read(where: predicate, sortedBy: sortedBy, limit: limit, offset: offset)
        }
        override func count() throws -> Int {
            record("count()")
            return try super.count()
        }
        override func count(where predicate: Predicate<Note>) throws -> Int {
            record("count(where:)")
            return try super.count(where: predicate)
        }
        override func erase(id: Int) throws {
            record("erase(id:)")
            try super.erase(id: id)
        }
        override func erase(ids: [Int]) throws {
            record("erase(ids:)")
            try super.erase(ids: ids)
        }
        override func erase(where predicate: Predicate<Note>) throws {
            record("erase(where:)")
            try super.erase(where: predicate)
        }
        override func erase() throws {
            record("erase()")
            try super.erase()
        }
        override func readReadable() throws -> ReadableRecords<Note, Int> {
            record("readReadable()")
            return try super.readReadable()
        }
        override func storedIDs() throws -> [Int] {
            record("storedIDs()")
            return try super.storedIDs()
        }
        override func erase(storageKeys: [String]) throws {
            record("erase(storageKeys:)")
            try super.erase(storageKeys: storageKeys)
        }
    }

    /// A subclass that only adds a query, and says its synchronous methods are not overridden.
    final class DirectDao: BaseDao<Note, NoteEntity>, @unchecked Sendable {
        override var awaitsAsyncContextDirectly: Bool { true }

        func withText(_ text: String) async throws -> [Note] {
            try await read(where: #Predicate { $0.text == text })
        }
    }

    enum ContextKind: String, CaseIterable, CustomTestStringConvertible {
        case blocking, async
        var testDescription: String { rawValue }

        func make() -> any StorageContext {
            switch self {
            case .blocking: return InMemoryStorageContext()
            case .async: return AsyncOnlyContext()
            }
        }
    }

    @Test(arguments: ContextKind.allCases)
    func everyAsyncWriteRefusesWhatTheOverrideRefuses(_ kind: ContextKind) async throws {
        let notes = ValidatingDao(context: kind.make())
        try await notes.create(Note(id: 1, text: "kept"))
        await #expect(throws: EmptyText.self) { try await notes.create(Note(id: 2, text: "")) }
        await #expect(throws: EmptyText.self) { try await notes.update(Note(id: 1, text: "")) }
        await #expect(throws: EmptyText.self) { try await notes.persist(Note(id: 3, text: "")) }
        await #expect(throws: EmptyText.self) {
            try await notes.persist([Note(id: 4, text: "ok"), Note(id: 5, text: "")])
        }
        #expect(try await notes.read() == [Note(id: 1, text: "kept")])
    }

    @Test(arguments: ContextKind.allCases)
    func everySynchronousWriteRefusesWhatTheOverrideRefuses(_ kind: ContextKind) throws {
        let notes: BaseDao<Note, NoteEntity> = ValidatingDao(context: kind.make())
        try notes.create(Note(id: 1, text: "kept"))
        #expect(throws: EmptyText.self) { try notes.create(Note(id: 2, text: "")) }
        #expect(throws: EmptyText.self) { try notes.update(Note(id: 1, text: "")) }
        #expect(throws: EmptyText.self) { try notes.persist(Note(id: 3, text: "")) }
        #expect(throws: EmptyText.self) { try notes.persist([Note(id: 4, text: "ok"), Note(id: 5, text: "")]) }
        #expect(try notes.read() == [Note(id: 1, text: "kept")])
    }

    @Test(arguments: ContextKind.allCases)
    func everyAsyncOverloadRunsTheOverriddenSynchronousMethod(_ kind: ContextKind) async throws {
        let notes = ValidatingDao(context: kind.make())
        try await notes.create(Note(id: 1, text: "a"))
        try await notes.update(Note(id: 1, text: "b"))
        try await notes.persist(Note(id: 2, text: "c"))
        try await notes.persist([Note(id: 3, text: "d")])
        _ = try await notes.read(id: 1)
        _ = try await notes.read()
        _ = try await notes.read(where: #Predicate { $0.id > 1 }, sortedBy: [SortDescriptor(\.id)], limit: 1)
        _ = try await notes.count()
        _ = try await notes.count(where: #Predicate { $0.id > 1 })
        _ = try await notes.readReadable()
        _ = try await notes.storedIDs()
        try await notes.erase(storageKeys: ["3"])
        try await notes.erase(id: 2)
        try await notes.erase(ids: [1])
        try await notes.erase(where: #Predicate { $0.id > 5 })
        try await notes.erase()
        #expect(
            notes.calls == [
                "create", "update", "persist", "persist[]", "read(id:)", "read()", "read(where:)", "count()",
                "count(where:)", "readReadable()", "storedIDs()", "erase(storageKeys:)", "erase(id:)", "erase(ids:)",
                "erase(where:)", "erase()",
            ])
    }

    @Test(arguments: ContextKind.allCases)
    func observationsRerunThroughTheOverriddenReads(_ kind: ContextKind) async throws {
        let notes = ValidatingDao(context: kind.make())
        try await notes.persist(Note(id: 1, text: "a"))
        var page = notes.observe(where: #Predicate { $0.id > 0 }).makeAsyncIterator()
        var one = notes.observe(id: 1).makeAsyncIterator()
        var all = notes.observeCount().makeAsyncIterator()
        var some = notes.observeCount(where: #Predicate { $0.id > 0 }).makeAsyncIterator()
        #expect(try await page.next() == [Note(id: 1, text: "a")])
        #expect(try await one.next() == Note(id: 1, text: "a"))
        #expect(try await all.next() == 1)
        #expect(try await some.next() == 1)
        let calls = notes.calls
        #expect(calls.contains("read(where:)"))
        #expect(calls.contains("read(id:)"))
        #expect(calls.contains("count()"))
        #expect(calls.contains("count(where:)"))
    }

    @Test func baseDaoItselfAwaitsAnAsyncContextDirectly() async throws {
        let context = AsyncOnlyContext()
        let notes = BaseDao<Note, NoteEntity>(context: context)
        #expect(notes.awaitsAsyncContextDirectly)
        try await notes.persist(Note(id: 1, text: "a"))
        #expect(try await notes.count() == 1)
        #expect(context.synchronousCalls.value == 0)
    }

    @Test func aSubclassRunsItsSynchronousMethodsOnAnAsyncContextUnlessItOptsOut() async throws {
        let validating = AsyncOnlyContext()
        let subclass = ValidatingDao(context: validating)
        #expect(!subclass.awaitsAsyncContextDirectly)
        try await subclass.persist(Note(id: 1, text: "a"))
        #expect(validating.synchronousCalls.value > 0)
        #expect(validating.asynchronousCalls.value == 0)

        let direct = AsyncOnlyContext()
        let optedOut = DirectDao(context: direct)
        try await optedOut.persist(Note(id: 1, text: "a"))
        #expect(try await optedOut.count() == 1)
        #expect(direct.synchronousCalls.value == 0)
        #expect(direct.asynchronousCalls.value == 2)
        #expect(try await optedOut.withText("a") == [Note(id: 1, text: "a")])
    }
}
