import Foundation
import Testing

@testable import DAOKit

/// `BaseDao.observe(where:…)`, `observe(id:)` and `observeCount(where:)` on every shipped context:
/// the first element, the elements after writes that alter the result, silence otherwise.
@Suite("Observation")
struct ObservationTests {
    @Test("the first element is the current result", arguments: LiveContextKind.allCases)
    func theFirstElementIsTheCurrentResult(_ kind: LiveContextKind) async throws {
        let (context, cleanUp) = try kind.make()
        defer { cleanUp() }
        let dao = LiveNoteDao(context: context)
        try await dao.persist([note("a", 1), note("b", 2), note("c", 3)])
        let recorder = StreamRecorder(
            dao.observe(where: #Predicate { $0.number >= 2 }, sortedBy: [SortDescriptor(\.number)]))
        defer { recorder.cancel() }
        #expect(await recorder.waitUntil { !$0.isEmpty })
        #expect(recorder.elements.first == [note("b", 2), note("c", 3)])
    }

    @Test("an observer sees a write by another DAO on the same context", arguments: LiveContextKind.allCases)
    func anObserverSeesAWriteByAnotherDaoOnTheSameContext(_ kind: LiveContextKind) async throws {
        let (context, cleanUp) = try kind.make()
        defer { cleanUp() }
        let observed = LiveNoteDao(context: context)
        let writer = LiveNoteDao(context: context)
        let recorder = StreamRecorder(observed.observe(sortedBy: [SortDescriptor(\.id)]))
        defer { recorder.cancel() }
        #expect(await recorder.waitUntil { $0 == [[]] })
        try await writer.persist(note("a", 1))
        #expect(await recorder.waitUntil { $0.last == [note("a", 1)] })
        try await writer.persist([note("b", 2), note("a", 10)])
        #expect(await recorder.waitUntil { $0.last == [note("a", 10), note("b", 2)] })
        try await writer.erase(id: "a")
        #expect(await recorder.waitUntil { $0.last == [note("b", 2)] })
        try await writer.erase()
        #expect(await recorder.waitUntil { $0.last == [] })
    }

    @Test("a write that leaves the result equal delivers nothing", arguments: LiveContextKind.allCases)
    func aWriteThatLeavesTheResultEqualDeliversNothing(_ kind: LiveContextKind) async throws {
        let (context, cleanUp) = try kind.make()
        defer { cleanUp() }
        let dao = LiveNoteDao(context: context)
        try await dao.persist(note("big", 100))
        let recorder = StreamRecorder(dao.observe(where: #Predicate { $0.number > 10 }))
        defer { recorder.cancel() }
        #expect(await recorder.waitUntil { $0.count == 1 })
        try await dao.persist(note("small", 1))  // does not match
        try await dao.persist(note("big", 100))  // rewritten with the same values
        try await dao.persist(note("small", 2))  // still does not match
        try await Task.sleep(for: silenceWindow)
        #expect(recorder.elements == [[note("big", 100)]])
        try await dao.persist(note("small", 50))  // now matches: the next element
        #expect(await recorder.waitUntil { $0.count == 2 })
        try await Task.sleep(for: silenceWindow)
        #expect(recorder.elements.count == 2)
        #expect(Set(recorder.elements[1].map(\.id)) == ["big", "small"])
    }

    @Test("writes to other entity types deliver nothing", arguments: LiveContextKind.allCases)
    func writesToOtherEntityTypesDeliverNothing(_ kind: LiveContextKind) async throws {
        let (context, cleanUp) = try kind.make()
        defer { cleanUp() }
        let notes = LiveNoteDao(context: context)
        let tags = LiveTagDao(context: context)
        let all = StreamRecorder(notes.observe())
        let count = StreamRecorder(notes.observeCount())
        let one = StreamRecorder(notes.observe(id: "a"))
        defer {
            all.cancel()
            count.cancel()
            one.cancel()
        }
        #expect(await all.waitUntil { $0.count == 1 })
        #expect(await count.waitUntil { $0 == [0] })
        #expect(await one.waitUntil { $0.count == 1 })
        try await tags.persist(LiveTag(id: "a", label: "same id, other type"))
        try await tags.erase()
        try await Task.sleep(for: silenceWindow)
        #expect(all.elements.count == 1)
        #expect(count.elements == [0])
        #expect(one.elements.count == 1)
    }

    @Test("observe(id:) follows its record and ignores the others", arguments: LiveContextKind.allCases)
    func observeIDFollowsItsRecordAndIgnoresTheOthers(_ kind: LiveContextKind) async throws {
        let (context, cleanUp) = try kind.make()
        defer { cleanUp() }
        let dao = LiveNoteDao(context: context)
        let recorder = StreamRecorder(dao.observe(id: "a"))
        defer { recorder.cancel() }
        #expect(await recorder.waitUntil { $0 == [nil] })
        try await dao.persist(note("b", 1))
        try await Task.sleep(for: silenceWindow)
        #expect(recorder.elements == [nil])
        try await dao.create(note("a", 1))
        #expect(await recorder.waitUntil { $0 == [nil, note("a", 1)] })
        try await dao.update(note("a", 2))
        #expect(await recorder.waitUntil { $0.last == note("a", 2) })
        try await dao.erase(ids: ["a", "b"])
        #expect(await recorder.waitUntil { $0.last == .some(nil) })
    }

    @Test("observeCount follows inserts and deletes that match", arguments: LiveContextKind.allCases)
    func observeCountFollowsInsertsAndDeletesThatMatch(_ kind: LiveContextKind) async throws {
        let (context, cleanUp) = try kind.make()
        defer { cleanUp() }
        let dao = LiveNoteDao(context: context)
        try await dao.persist([note("a", 1), note("b", 20)])
        let recorder = StreamRecorder(dao.observeCount(where: #Predicate { $0.number > 10 }))
        defer { recorder.cancel() }
        #expect(await recorder.waitUntil { $0 == [1] })
        try await dao.persist(note("c", 30))
        #expect(await recorder.waitUntil { $0 == [1, 2] })
        try await dao.persist(note("d", 3))
        try await Task.sleep(for: silenceWindow)
        #expect(recorder.elements == [1, 2])
        try await dao.erase(where: #Predicate { $0.number > 25 })
        #expect(await recorder.waitUntil { $0 == [1, 2, 1] })
    }

    @Test("a paged query re-runs when a record before its page leaves")
    func aPagedQueryReRunsWhenARecordBeforeItsPageLeaves() async throws {
        let dao = LiveNoteDao(context: InMemoryStorageContext())
        try await dao.persist((1...5).map { note("n\($0)", $0) })
        let recorder = StreamRecorder(
            dao.observe(
                where: #Predicate { $0.number > 0 }, sortedBy: [SortDescriptor(\.number)],
                limit: 2, offset: 1))
        defer { recorder.cancel() }
        #expect(await recorder.waitUntil { $0 == [[note("n2", 2), note("n3", 3)]] })
        try await dao.persist(note("n1", -1))  // leaves the matches, before the page: the page shifts
        #expect(await recorder.waitUntil { $0.last == [note("n3", 3), note("n4", 4)] })
    }
}
