// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/EvolvingEntities.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
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
    // Every top-level constant and variable of the samples, read once.
    _ = snapshots
    _ = firstRun
}
