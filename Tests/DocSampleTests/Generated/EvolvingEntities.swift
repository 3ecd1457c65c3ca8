// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/EvolvingEntities.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import DAOKitTesting
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:35
private struct TaskEntity: Storable {
    var id: String
    var title: String
    var note: String
    var due: Date?
}

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:42
/// Called from a test of the app, with a folder next to the test file, such as
/// `URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("EntityShapes")`.
private func checkTaskShapes(snapshots: URL) throws {
    try EntityShapeCheck(TaskEntity.self, version: 1, snapshots: snapshots).verify()
}

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:151
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

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:182
/// The first release's declaration of the same records.
private struct TicketRecordV1: Storable {
    var id: String
    var title: String
    var note: String
    static var entityName: String { "TicketEntity" }
}

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:202
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

// Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:220
/// The first release's declaration of the same records.
private struct EstimateRecordV1: Storable {
    var id: String
    var estimate: Int
    static var entityName: String { "EstimateEntity" }
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/EvolvingEntities.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/EvolvingEntities.md: its samples compile and run")
func evolvingEntitiesSamples() throws {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("doc-sample-EvolvingEntities-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:53
    let snapshots = folder.appendingPathComponent("EntityShapes")
    var firstRun = ""
    do {
        try checkTaskShapes(snapshots: snapshots)
    } catch let failure as EntityShapeCheckFailure {
        firstRun = failure.description  // "… recorded the stored shape of TaskEntity at version 1 in …"
    }
    try checkTaskShapes(snapshots: snapshots)  // passes: the shape is the recorded one
    // Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:182
    let tickets = KeyValueStorageContext(store: InMemoryKeyValueStore())
    try tickets.save([TicketRecordV1(id: "1", title: "Ship it", note: "by Friday")])
    let ticket = try tickets.fetch(TicketEntity.self, id: "1")  // points 0, remark "by Friday"
    // Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:202
    let estimates = KeyValueStorageContext(store: InMemoryKeyValueStore())
    try estimates.save([EstimateRecordV1(id: "1", estimate: 3), EstimateRecordV1(id: "2", estimate: -1)])
    let estimate = try estimates.fetch(EstimateEntity.self, id: "1")  // estimate "3h"
    let found = try estimates.fetchReadable(EstimateEntity.self)  // "1", and "2" as unreadable:
    // "version 2's migration step failed for EstimateEntity "2": a negative estimate (-1 hours)"
    // Sources/DAOKit/DAOKit.docc/EvolvingEntities.md:302
    let dao = BaseDao<TicketEntity, TicketEntity>(context: tickets)
    let rewritten = try dao.migrate { progress in
        print("migrating tickets: \(progress)")  // "0 of 1 records", then "1 of 1 records"
    }
    print("rewrote \(rewritten) tickets")  // the first release's ticket, now stored as version 3
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
}
