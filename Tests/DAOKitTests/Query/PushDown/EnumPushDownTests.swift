import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// A field of a `RawRepresentable`, `CaseIterable` enum stored as its raw value is handed to the
/// context for `==`, `!=` and membership, and for orderings and sorts when the enum's `<` is its
/// raw values' order, with the page when everything translates; the answers are the full scan's
/// on every shipped context. Enums the proof cannot cover (not `CaseIterable`, a decoder with an
/// "unknown" fallback) stay in Swift, still answering right.
@Suite("Enum fields push down")
struct EnumPushDownTests {
    /// Ordered by raw value: `blocked < done < open`.
    enum Status: String, Codable, CaseIterable, Comparable, Sendable {
        case open, blocked, done
        static func < (lhs: Status, rhs: Status) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// Ordered by urgency, stored by name: `high` sorts first by raw value, last by `<`.
    enum Priority: String, Codable, CaseIterable, Comparable, Sendable {
        case low, medium, high
        static func < (lhs: Priority, rhs: Priority) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// Not `CaseIterable`: its cases cannot all be probed.
    enum Mood: String, Codable, Sendable { case calm, loud }

    struct Task: Codable, Identifiable, Equatable, Sendable {
        var id: Int
        var projectID: Int
        var status: Status
        var priority: Priority
        var mood: Mood
        var due: Date
        var previous: Status?
    }

    struct TaskEntity: Storable {
        static let indexes = [StorageIndex("projectID", "status"), StorageIndex("status")]
        var id: Int
        var projectID: Int
        var status: Status
        var priority: Priority
        var mood: Mood
        var due: Date
        var previous: Status?
    }

    static let tasks: [Task] = (0..<24).map(task)

    static func task(_ index: Int) -> Task {
        let status = Status.allCases[index % 3]
        let priority = Priority.allCases[(index / 3) % 3]
        let due = Date(timeIntervalSinceReferenceDate: Double((index * 7) % 24) * 3600)
        let previous: Status? = index % 4 == 0 ? nil : Status.allCases[index % 2]
        return Task(
            id: index, projectID: index % 3, status: status, priority: priority, mood: index % 2 == 0 ? .calm : .loud,
            due: due, previous: previous)
    }

    /// A DAO over a recording wrapper of a fresh context of `factory`, holding ``tasks``.
    func withDao(_ factory: ContextFactory, _ body: (BaseDao<Task, TaskEntity>, QueryRecordingContext) throws -> Void)
        throws
    {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let recording = QueryRecordingContext(fresh.context)
        let dao = BaseDao<Task, TaskEntity>(context: recording)
        try dao.persist(Self.tasks)
        _ = recording.takeRequests()
        try body(dao, recording)
    }

    // Predicates capture constants: a case named inside `#Predicate` is not a value it takes.
    static let (open, blocked, done) = (Status.open, Status.blocked, Status.done)
    static let (low, high) = (Priority.low, Priority.high)
    static let (openOrBlocked, lowOrHigh) = ([Status.open, .blocked], [Priority.low, .high])

    /// The predicates the context must count exactly.
    static var exact: [(String, Predicate<Task>)] {
        let (open, blocked, done, high, openOrBlocked, lowOrHigh) = (
            Self.open, Self.blocked, Self.done, Self.high,
            Self.openOrBlocked, Self.lowOrHigh
        )
        let previous: Status? = blocked
        return [
            ("==", #Predicate { $0.status == open }),
            ("!=", #Predicate { $0.status != done }),
            ("<", #Predicate { $0.status < open }),
            (">=", #Predicate { $0.status >= done }),
            ("membership", #Predicate { openOrBlocked.contains($0.status) }),
            ("optional == nil", #Predicate { $0.previous == nil }),
            ("optional ==", #Predicate { $0.previous == previous }),
            ("compound index", #Predicate { $0.projectID == 1 && $0.status == blocked }),
            ("unordered enum ==", #Predicate { $0.priority == high }),
            ("unordered enum membership", #Predicate { lowOrHigh.contains($0.priority) }),
        ]
    }

    @Test(arguments: ContextFactory.everyShipped)
    func comparisonsAndMembershipAreCountedByTheContext(_ factory: ContextFactory) throws {
        try withDao(factory) { dao, recording in
            for (name, predicate) in Self.exact {
                let expected = try Self.tasks.filter(predicate.evaluate).count
                #expect(try dao.count(where: predicate) == expected, "\(factory) \(name)")
                let requests = recording.takeRequests()
                guard case .count? = requests.last else {
                    Issue.record("\(factory) \(name): not counted by the context: \(requests)")
                    continue
                }
            }
        }
    }

    @Test(arguments: ContextFactory.everyShipped)
    func theFirstPageOfOpenTasksByDueDateIsPagedByTheContext(_ factory: ContextFactory) throws {
        try withDao(factory) { dao, recording in
            let open = Self.open
            let isOpen = #Predicate<Task> { $0.status == open }
            let page = try dao.read(where: isOpen, sortedBy: [SortDescriptor(\.due)], limit: 3, offset: 1)
            let expected = try DomainQuery(predicate: isOpen, sortedBy: [SortDescriptor(\.due)], limit: 3, offset: 1)
                .apply(to: Self.tasks)
            #expect(page == expected)
            // The last request: the first query of a process also fetches the proof's sample.
            #expect(
                recording.takeRequests().last
                    == .fetch(
                        StorageQuery(
                            filter: .compare("status", .equal, .string("open")),
                            sort: [StorageSortKey("due")], limit: 3, offset: 1)))
        }
    }

    @Test(arguments: ContextFactory.everyShipped)
    func aSortByAnEnumOrderedByItsRawValuesIsTheContexts(_ factory: ContextFactory) throws {
        try withDao(factory) { dao, recording in
            let sort = [SortDescriptor(\Task.status, order: .reverse), SortDescriptor(\Task.id)]
            let expected = Array(Self.tasks.sorted(using: sort).prefix(5))
            let found = try dao.read(sortedBy: sort, limit: 5)
            #expect(found == expected)
            #expect(
                recording.takeRequests().last
                    == .fetch(
                        StorageQuery(
                            sort: [StorageSortKey("status", order: .reverse), StorageSortKey("id")],
                            limit: 5)))
        }
    }

    @Test(arguments: ContextFactory.everyShipped)
    func anEnumOrderedOtherwiseThanItsRawValuesOrdersAndSortsInSwift(_ factory: ContextFactory) throws {
        try withDao(factory) { dao, recording in
            let high = Self.high
            let below = #Predicate<Task> { $0.priority < high }
            let expectedCount = try Self.tasks.filter(below.evaluate).count
            #expect(try dao.count(where: below) == expectedCount)
            #expect(!recording.takeRequests().contains { if case .count = $0 { true } else { false } })
            let sort = [SortDescriptor(\Task.priority), SortDescriptor(\Task.id)]
            let expected = Array(Self.tasks.sorted(using: sort).prefix(4))
            let found = try dao.read(sortedBy: sort, limit: 4)
            #expect(found == expected)
            for case .fetch(let query) in recording.takeRequests() {
                #expect(query.sort.isEmpty && query.limit == nil, "\(factory): \(query)")
            }
        }
    }

    @Test(arguments: ContextFactory.everyShipped)
    func anEnumThatIsNotCaseIterableStaysInSwift(_ factory: ContextFactory) throws {
        try withDao(factory) { dao, recording in
            let mood = Mood.calm
            let calm = #Predicate<Task> { $0.mood == mood }
            let expected = try Self.tasks.filter(calm.evaluate).count
            #expect(try dao.count(where: calm) == expected)
            #expect(recording.takeRequests().allSatisfy { $0 == .fetchAll }, "\(factory)")
        }
    }

    /// Decodes any stored name it does not know as `.unknown`.
    enum Stage: String, Codable, CaseIterable, Sendable {
        case planned, shipped, unknown
        init(from decoder: any Decoder) throws {
            self = Stage(rawValue: try decoder.singleValueContainer().decode(String.self)) ?? .unknown
        }
    }

    struct Release: Codable, Identifiable, Equatable, Sendable {
        var id: Int
        var stage: Stage
    }

    /// Stores the stage as a string, as an older version wrote it.
    struct ReleaseEntity: Storable {
        var id: Int
        var stage: String
    }

    @Test(arguments: ContextFactory.everyShipped)
    func anEnumWithAnUnknownFallbackIsNotHandedToTheContext(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let recording = QueryRecordingContext(fresh.context)
        try recording.save([
            ReleaseEntity(id: 1, stage: "planned"), ReleaseEntity(id: 2, stage: "archived"),
            ReleaseEntity(id: 3, stage: "unknown"),
        ])
        let dao = BaseDao<Release, ReleaseEntity>(context: recording)
        // "archived" reads as `.unknown`: a stored-value comparison would miss it.
        let unknown = Stage.unknown
        #expect(try dao.count(where: #Predicate { $0.stage == unknown }) == 2, "\(factory)")
        #expect(!recording.takeRequests().contains { if case .count = $0 { true } else { false } }, "\(factory)")
    }
}
