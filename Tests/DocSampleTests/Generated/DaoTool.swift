// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/DaoTool.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import DAOKitFileStore
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/DaoTool.md:45
private struct Message: Codable, Identifiable {
    var id: UUID
    var dialogID: String
    var author: String
    var text: String
    var date: Date
    var isRead: Bool
}

// Sources/DAOKit/DAOKit.docc/DaoTool.md:54
private struct MessageEntity: Storable {
    var id: UUID
    var dialogID: String
    var author: String
    var text: String
    var date: Date
    var isRead: Bool
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/DaoTool.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/DaoTool.md: its samples compile and run")
func daoToolSamples() throws {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("doc-sample-DaoTool-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Sources/DAOKit/DAOKit.docc/DaoTool.md:41
    let chatStore = folder.appendingPathComponent("chat-store")
    let store = try FileStorageContext(directory: chatStore)
    let messages = BaseDao<Message, MessageEntity>(context: store)
    try messages.persist(Message(id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, dialogID: "family",
                                 author: "mum", text: "Dinner at 7?", date: Date(timeIntervalSinceReferenceDate: 736_000_000),
                                 isRead: false))
    // Every top-level constant and variable of the samples, read once.
    _ = chatStore
    _ = store
    _ = messages
}
