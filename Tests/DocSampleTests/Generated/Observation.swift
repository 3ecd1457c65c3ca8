// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/Observation.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import DAOKitFileStore
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/Observation.md:18
private struct Message: Codable, Identifiable, Equatable, Sendable {
    var id: Int
    var text: String
    var date: Date
    var isRead: Bool
}

// Sources/DAOKit/DAOKit.docc/Observation.md:25
private struct MessageEntity: Storable, Sendable {
    static let entityName = "Message"
    var id: Int
    var text: String
    var date: Date
    var isRead: Bool
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/Observation.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/Observation.md: its samples compile and run")
func observationSamples() async throws {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("doc-sample-Observation-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Sources/DAOKit/DAOKit.docc/Observation.md:14
    let messages = BaseDao<Message, MessageEntity>(context: InMemoryStorageContext())
    let inbox = Task {
        var pages: [[Message]] = []
        for try await page in messages.observe(where: #Predicate { !$0.isRead },
                                               sortedBy: [SortDescriptor(\.date, order: .reverse)],
                                               limit: 50) {
            pages.append(page)       // a view would show `page` here
            if page.count == 2 { break }
        }
        return pages
    }
    try await messages.persist([Message(id: 1, text: "Hi", date: Date(), isRead: false),
                                Message(id: 2, text: "Dinner at 7?", date: Date(), isRead: false)])
    let pages = try await inbox.value
    assert(pages.last?.count == 2)
    // Sources/DAOKit/DAOKit.docc/Observation.md:54
    let badge = Task {
        for try await count in messages.observeCount(where: #Predicate { !$0.isRead }) where count == 1 {
            return count
        }
        return -1
    }
    var first = try await messages.read(id: 1)!
    first.isRead = true
    try await messages.persist(first)
    let badgeCount = try await badge.value
    // Sources/DAOKit/DAOKit.docc/Observation.md:74
    let shared = folder.appendingPathComponent("shared-store")
    let appStore = try FileStorageContext(directory: shared)
    let extensionStore = try FileStorageContext(directory: shared)  // in the extension's process
    let appBadge = Task {
        for try await count in BaseDao<Message, MessageEntity>(context: appStore).observeCount() where count > 0 {
            return count
        }
        return 0
    }
    try await BaseDao<Message, MessageEntity>(context: extensionStore)
        .persist(Message(id: 3, text: "From the widget", date: Date(), isRead: false))
    let appBadgeCount = try await appBadge.value
    // Every top-level constant and variable of the samples, read once.
    _ = messages
    _ = inbox
    _ = pages
    _ = badge
    _ = first
    _ = badgeCount
    _ = shared
    _ = appStore
    _ = extensionStore
    _ = appBadge
    _ = appBadgeCount
}
