import DAOKit
import DAOKitPostgres
import Foundation
import Testing

// The releases of "Three releases of a task tracker" in EvolvingEntities.md (Sources/DAOKit/DAOKit.docc),
// as the article declares them: the article's own test runs them on the key-value store, the file
// store and SQLite, and this one on PostgreSQL.

/// Release 1.
private struct TaskV1: Storable, Equatable {
    static var entityName: String { "Task" }
    var id: String
    var title: String
    var estimate: Int  // hours
    var note: String
    var status: Status

    enum Status: String, Codable, CaseIterable { case open, done }
}

/// Release 2 adds `points` with a default and stops reading `note`, which release 1 still reads.
private struct TaskV2: Storable, Equatable {
    static var entityName: String { "Task" }
    static let schema = EntitySchema(
        version: 2, readableFrom: 1, steps: [2: [.added("points", default: 0), .removed("note")]])
    var id: String
    var title: String
    var estimate: Int
    var status: TaskV1.Status
    var points: Int
}

/// Release 3 renames `title`, lets `status` be `archived`, and turns the estimate into text.
private struct TaskV3: Storable, Equatable {
    static var entityName: String { "Task" }
    static let schema = EntitySchema(
        version: 4,
        steps: [
            2: [.added("points", default: 0), .removed("note")],
            3: [.renamed("title", to: "name"), .widened("status")],
            4: [
                .migrated { record in
                    let hours = try record.decode(Int.self, forField: "estimate")
                    try record.encode("\(hours)h", forField: "estimate")
                }
            ],
        ])
    var id: String
    var name: String
    var estimate: String
    var status: Status
    var points: Int

    enum Status: String, Codable, CaseIterable { case open, done, archived }
}

/// Thrown when a release reads something else than the example says.
private struct ExampleFailure: Error {}

/// The three releases, one after the other, on `context`; returns the tasks release 3 reads.
private func shipThreeReleases<C: VersionedStorageContext>(on context: C) throws -> [TaskV3] {
    try context.save([
        TaskV1(id: "1", title: "Plan", estimate: 3, note: "ask Kim", status: .open),
        TaskV1(id: "2", title: "Ship", estimate: 8, note: "", status: .done),
    ])
    let tasks2 = BaseDao<TaskV2, TaskV2>(context: context)
    guard var plan = try tasks2.read(id: "1"), plan.points == 0 else { throw ExampleFailure() }
    plan.points = 5
    try tasks2.update(plan)
    guard try context.fetch(TaskV1.self, id: "1")?.note == "ask Kim" else { throw ExampleFailure() }
    let tasks3 = BaseDao<TaskV3, TaskV3>(context: context)
    guard try tasks3.count(where: #Predicate { $0.points == 0 }) == 1,
        try tasks3.read(where: #Predicate { $0.estimate == "8h" }).map(\.id) == ["2"]
    else { throw ExampleFailure() }
    guard var ship = try tasks3.read(id: "2") else { throw ExampleFailure() }
    ship.status = .archived
    try tasks3.update(ship)
    try tasks3.migrate()
    return try tasks3.read(sortedBy: [SortDescriptor(\.id)])
}

@Suite("Three releases of a task tracker keep every record on PostgreSQL")
struct PostgresThreeReleasesTests {
    @Test func everyReleaseReadsAndQueriesWhatTheOthersWrote() async throws {
        let tasks = try await Task.detached {
            let context = try TestServer.context()
            defer { context.close() }
            return try shipThreeReleases(on: context)
        }.value
        #expect(
            tasks == [
                TaskV3(id: "1", name: "Plan", estimate: "3h", status: .open, points: 5),
                TaskV3(id: "2", name: "Ship", estimate: "8h", status: .archived, points: 0),
            ])
    }
}
