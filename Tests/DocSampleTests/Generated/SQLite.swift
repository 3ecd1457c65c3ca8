// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/SQLite.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import DAOKitSQLite
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/SQLite.md:16
private struct Message: Codable, Identifiable {
    var id: Int
    var dialogID: String
    var text: String
    var date: Date
    var isRead: Bool
}

// Sources/DAOKit/DAOKit.docc/SQLite.md:24
private struct MessageEntity: Storable {
    static let entityName = "Message"
    static let indexes = [StorageIndex("dialogID", "date")]
    var id: Int
    var dialogID: String
    var text: String
    var date: Date
    var isRead: Bool
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/SQLite.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/SQLite.md: its samples compile and run")
func sQLiteSamples() throws {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("doc-sample-SQLite-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Sources/DAOKit/DAOKit.docc/SQLite.md:12
    let store = try SQLiteStorageContext(file: folder.appendingPathComponent("messages.sqlite"))
    let messages = BaseDao<Message, MessageEntity>(context: store)
    try messages.persist((1...100).map {
        Message(id: $0, dialogID: "d\($0 % 10)", text: "#\($0)", date: Date(timeIntervalSinceReferenceDate: Double($0)),
                isRead: $0 % 3 == 0)
    })
    let screen = try messages.read(where: #Predicate { $0.dialogID == "d1" && !$0.isRead },
                                   sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: 20)
    assert(screen.count == 7)
    // Every top-level constant and variable of the samples, read once.
    _ = store
    _ = messages
    _ = screen
}
