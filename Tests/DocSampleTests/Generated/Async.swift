// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/Async.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import DAOKitFileStore
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/Async.md:18
private struct Reading: Codable, Identifiable, Sendable {
    var id: Int
    var sensor: String
    var value: Double
    var date: Date
}

// Sources/DAOKit/DAOKit.docc/Async.md:25
private struct ReadingEntity: Storable, Sendable {
    static let entityName = "Reading"
    var id: Int
    var sensor: String
    var value: Double
    var date: Date
}

// Sources/DAOKit/DAOKit.docc/Async.md:76
private struct NegativeReading: Error {}

// Sources/DAOKit/DAOKit.docc/Async.md:78
private final class CheckedReadingsDao: BaseDao<Reading, ReadingEntity>, @unchecked Sendable {
    override func persist(_ reading: Reading) throws {
        guard reading.value >= 0 else { throw NegativeReading() }
        try super.persist(reading)
    }
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/Async.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/Async.md: its samples compile and run")
func asyncSamples() async throws {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("doc-sample-Async-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Sources/DAOKit/DAOKit.docc/Async.md:14
    let store = try FileStorageContext(directory: folder.appendingPathComponent("readings"))
    let readings = BaseDao<Reading, ReadingEntity>(context: store)
    let incoming = (0..<1_000).map { Reading(id: $0, sensor: "s\($0 % 4)", value: Double($0), date: Date()) }

    try await withThrowingTaskGroup(of: Void.self) { group in
        for start in stride(from: 0, to: incoming.count, by: 100) {
            let batch = Array(incoming[start..<start + 100])
            group.addTask { try await readings.persist(batch) }   // a DAO is Sendable
        }
        try await group.waitForAll()
    }
    let latest = try await readings.read(sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: 20)
    assert(latest.count == 20)
    // Sources/DAOKit/DAOKit.docc/Async.md:76
    let checked = CheckedReadingsDao(context: store)
    do {
        try await checked.persist(Reading(id: -1, sensor: "s0", value: -5, date: Date()))
        assertionFailure("the override runs on the async path too")
    } catch is NegativeReading {
    }
    // Every top-level constant and variable of the samples, read once.
    _ = store
    _ = readings
    _ = incoming
    _ = latest
    _ = checked
}
