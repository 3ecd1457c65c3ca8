// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/ChoosingAContext.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import DAOKitFileStore
import DAOKitSQLite
import DAOKitTesting
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/ChoosingAContext.md:17
private struct Draft: Codable, Identifiable {
    var id: String
    var text: String
}

// Sources/DAOKit/DAOKit.docc/ChoosingAContext.md:22
private struct DraftEntity: Storable {
    static let entityName = "Draft"
    var id: String
    var text: String
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/ChoosingAContext.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/ChoosingAContext.md: its samples compile and run")
func choosingAContextSamples() throws {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("doc-sample-ChoosingAContext-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Sources/DAOKit/DAOKit.docc/ChoosingAContext.md:11
    let forTests = InMemoryStorageContext()
    let inMemoryStore = KeyValueStorageContext(store: InMemoryKeyValueStore(), namespace: "drafts")
    let inFiles = try FileStorageContext(directory: folder.appendingPathComponent("store"))
    let inSQLite = try SQLiteStorageContext(file: folder.appendingPathComponent("drafts.sqlite"))
    for context in [forTests, inMemoryStore, inFiles, inSQLite] as [any StorageContext] {
        let drafts = BaseDao<Draft, DraftEntity>(context: context)
        try drafts.persist(Draft(id: "d1", text: "Dear …"))
        let text = try drafts.read(id: "d1")?.text
        assert(text == "Dear …")
    }
    // Sources/DAOKit/DAOKit.docc/ChoosingAContext.md:139
    try StorageContextContract.verify(makeContext: { InMemoryStorageContext() })   // an empty context per check
    // Sources/DAOKit/DAOKit.docc/ChoosingAContext.md:157
    // In a test of yours, one case per seed: @Test(arguments: [1, 2, 3] as [UInt64]) func agrees(seed: UInt64)
    let mismatches = try QueryDifferential.fetchAndCountMismatches(QueryProbe<QueryProbeIndexed>.self,
                                                                   in: SQLiteStorageContext(), seed: 1)
    assert(mismatches.isEmpty, "\(mismatches)")
    // Every top-level constant and variable of the samples, read once.
    _ = forTests
    _ = inMemoryStore
    _ = inFiles
    _ = inSQLite
    _ = mismatches
}
