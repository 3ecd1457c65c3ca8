// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/EvolvingEntities.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import DAOKitFileStore
import DAOKitSQLite
import DAOKitTesting
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:34
private struct TaskEntity: Storable {
    var id: String
    var title: String
    var note: String
    var due: Date?
}

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:41
/// Called from a test of the app, with a folder next to the test file, such as
/// `URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("EntityShapes")`.
private func checkTaskShapes(snapshots: URL) throws {
    try EntityShapeCheck(TaskEntity.self, version: 1, snapshots: snapshots).verify()
}

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:150
private struct TicketEntity: Storable {
    var id: String
    var title: String
    var points: Int  // added in version 2
    var remark: String  // called `note` until version 3

    static let schema = EntitySchema(
        version: 3,
        steps: [
            2: [.added("points", default: 0)],
            3: [.renamed("note", to: "remark")],
        ])
}

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:181
/// The first release's declaration of the same records.
private struct TicketRecordV1: Storable {
    var id: String
    var title: String
    var note: String
    static var entityName: String { "TicketEntity" }
}

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:201
/// An estimate: a number of hours until version 2, text such as "3h" since.
private struct EstimateEntity: Storable {
    var id: String
    var estimate: String

    static let schema = EntitySchema(
        version: 2,
        steps: [
            2: [
                .migrated { record in
                    let hours = try record.decode(Int.self, forField: "estimate")
                    guard hours >= 0 else { throw record.failure("a negative estimate (\(hours) hours)") }
                    try record.encode("\(hours)h", forField: "estimate")
                }
            ]
        ])
}

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:219
/// The first release's declaration of the same records.
private struct EstimateRecordV1: Storable {
    var id: String
    var estimate: Int
    static var entityName: String { "EstimateEntity" }
}

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:360
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

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:372
/// Release 2 adds `points` with a default and stops reading `note`. Release 1 still reads what
/// release 2 writes over its records (the note is kept), so release 2 says so: it may be rolled
/// back.
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

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:386
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

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:410
/// The three releases, one after the other, on `context`; returns the tasks release 3 reads.
private func shipThreeReleases<C: VersionedStorageContext>(on context: C) throws -> [TaskV3] {
    // Release 1 writes two tasks.
    try context.save([
        TaskV1(id: "1", title: "Plan", estimate: 3, note: "ask Kim", status: .open),
        TaskV1(id: "2", title: "Ship", estimate: 8, note: "", status: .done),
    ])
    // Release 2 reads them with their default points and updates one; then it is rolled back, and
    // release 1 reads the updated task, note and all.
    let tasks2 = BaseDao<TaskV2, TaskV2>(context: context)
    guard var plan = try tasks2.read(id: "1"), plan.points == 0 else { throw ExampleFailure() }
    plan.points = 5
    try tasks2.update(plan)
    guard try context.fetch(TaskV1.self, id: "1")?.note == "ask Kim" else { throw ExampleFailure() }
    // Release 3 reads every task through every step, queries them, and archives one.
    let tasks3 = BaseDao<TaskV3, TaskV3>(context: context)
    guard try tasks3.count(where: #Predicate { $0.points == 0 }) == 1,
        try tasks3.read(where: #Predicate { $0.estimate == "8h" }).map(\.id) == ["2"]
    else { throw ExampleFailure() }
    guard var ship = try tasks3.read(id: "2") else { throw ExampleFailure() }
    ship.status = .archived
    try tasks3.update(ship)
    // Once release 3 runs everywhere, it rewrites the older records once.
    try tasks3.migrate()
    return try tasks3.read(sortedBy: [SortDescriptor(\.id)])
}

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:437
/// Thrown when a release reads something else than the example says.
private struct ExampleFailure: Error {}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/EvolvingEntities.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/EvolvingEntities.md: its samples compile and run")
func evolvingEntitiesSamples() throws {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("doc-sample-EvolvingEntities-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:52
    let snapshots = folder.appendingPathComponent("EntityShapes")
    var firstRun = ""
    do {
        try checkTaskShapes(snapshots: snapshots)
    } catch let failure as EntityShapeCheckFailure {
        firstRun = failure.description  // "… recorded the stored shape of TaskEntity at version 1 in …"
    }
    try checkTaskShapes(snapshots: snapshots)  // passes: the shape is the recorded one
    // Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:181
    let tickets = KeyValueStorageContext(store: InMemoryKeyValueStore())
    try tickets.save([TicketRecordV1(id: "1", title: "Ship it", note: "by Friday")])
    let ticket = try tickets.fetch(TicketEntity.self, id: "1")  // points 0, remark "by Friday"
    // Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:201
    let estimates = KeyValueStorageContext(store: InMemoryKeyValueStore())
    try estimates.save([EstimateRecordV1(id: "1", estimate: 3), EstimateRecordV1(id: "2", estimate: -1)])
    let estimate = try estimates.fetch(EstimateEntity.self, id: "1")  // estimate "3h"
    let found = try estimates.fetchReadable(EstimateEntity.self)  // "1", and "2" as unreadable:
    // "version 2's migration step failed for EstimateEntity "2": a negative estimate (-1 hours)"
    // Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:303
    let dao = BaseDao<TicketEntity, TicketEntity>(context: tickets)
    let rewritten = try dao.migrate { progress in
        print("migrating tickets: \(progress)")  // "0 of 1 records", then "1 of 1 records"
    }
    print("rewrote \(rewritten) tickets")  // the first release's ticket, now stored as version 3
    // Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:357
    let expected = [
        TaskV3(id: "1", name: "Plan", estimate: "3h", status: .open, points: 5),
        TaskV3(id: "2", name: "Ship", estimate: "8h", status: .archived, points: 0),
    ]
    let keyValue = try shipThreeReleases(on: KeyValueStorageContext(store: InMemoryKeyValueStore()))
    let files = try shipThreeReleases(on: FileStorageContext(directory: folder.appendingPathComponent("files")))
    let sqlite = try shipThreeReleases(on: SQLiteStorageContext(file: folder.appendingPathComponent("tasks.sqlite")))
    assert([keyValue, files, sqlite].allSatisfy { $0 == expected })
    // Every top-level constant and variable of the samples, read once.
    _ = snapshots
    _ = firstRun
    _ = tickets
    _ = ticket
    _ = estimates
    _ = estimate
    _ = found
    _ = dao
    _ = rewritten
    _ = expected
    _ = keyValue
    _ = files
    _ = sqlite
}
