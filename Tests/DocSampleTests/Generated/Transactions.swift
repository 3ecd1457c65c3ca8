// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/Transactions.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/Transactions.md:23
private struct TrackedTask: Codable, Identifiable, Equatable, Sendable {
    var id: String
    var projectID: String
    var title: String
}

// Sources/DAOKit/DAOKit.docc/Transactions.md:29
private struct TrackedTaskEntity: Storable, Sendable {
    static let entityName = "Task"
    static var indexes: [StorageIndex] { [StorageIndex("projectID")] }
    var id: String
    var projectID: String
    var title: String
}

// Sources/DAOKit/DAOKit.docc/Transactions.md:37
private struct Comment: Codable, Identifiable, Equatable, Sendable {
    var id: String
    var taskID: String
    var text: String
}

// Sources/DAOKit/DAOKit.docc/Transactions.md:43
private struct CommentEntity: Storable, Sendable {
    static let entityName = "Comment"
    var id: String
    var taskID: String
    var text: String
}

// Sources/DAOKit/DAOKit.docc/Transactions.md:50
private typealias TaskDao = BaseDao<TrackedTask, TrackedTaskEntity>

// Sources/DAOKit/DAOKit.docc/Transactions.md:51
private typealias CommentDao = BaseDao<Comment, CommentEntity>

// Sources/DAOKit/DAOKit.docc/Transactions.md:69
private struct NoCommentsOnArchivedTasks: Error {}

// Sources/DAOKit/DAOKit.docc/Transactions.md:89
private struct Project: Codable, Identifiable, Equatable, Sendable {
    var id: String
    var openTasks: Int
}

// Sources/DAOKit/DAOKit.docc/Transactions.md:94
private struct ProjectEntity: Storable, Sendable {
    static let entityName = "Project"
    var id: String
    var openTasks: Int
}

// Sources/DAOKit/DAOKit.docc/Transactions.md:100
private typealias ProjectDao = BaseDao<Project, ProjectEntity>

// Sources/DAOKit/DAOKit.docc/Transactions.md:155
private func createWithComment(_ task: TrackedTask, _ comment: Comment, in context: InMemoryStorageContext) async throws {
    try await context.transaction { tx in
        try await TaskDao(context: tx).create(task)
        try await CommentDao(context: tx).create(comment)
    }
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/Transactions.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/Transactions.md: its samples compile and run")
func transactionsSamples() throws {
    // Sources/DAOKit/DAOKit.docc/Transactions.md:20
    let context = InMemoryStorageContext()

    try context.transaction { tx in
        let tasks = TaskDao(context: tx)
        let comments = CommentDao(context: tx)
        try tasks.create(TrackedTask(id: "T-1", projectID: "apollo", title: "Write the release notes"))
        try comments.create(Comment(id: "C-1", taskID: "T-1", text: "Draft in the wiki"))
    }
    let stored = try CommentDao(context: context).read(id: "C-1")
    // Sources/DAOKit/DAOKit.docc/Transactions.md:69
    do {
        try context.transaction { tx in
            try TaskDao(context: tx).create(TrackedTask(id: "T-2", projectID: "apollo", title: "Archive"))
            throw NoCommentsOnArchivedTasks()
        }
    } catch is NoCommentsOnArchivedTasks {
        // Neither the task nor anything else of the body was stored.
    }
    let secondTask = try TaskDao(context: context).read(id: "T-2")  // nil
    // Sources/DAOKit/DAOKit.docc/Transactions.md:89
    try ProjectDao(context: context).persist([Project(id: "apollo", openTasks: 1), Project(id: "gemini", openTasks: 0)])

    let inGemini = try context.transaction { tx in
        let tasks = TaskDao(context: tx)
        let projects = ProjectDao(context: tx)
        guard var task = try tasks.read(id: "T-1"),
              var from = try projects.read(id: task.projectID),
              var to = try projects.read(id: "gemini") else { return 0 }
        task.projectID = to.id
        from.openTasks -= 1
        to.openTasks += 1
        try tasks.update(task)
        try projects.persist([from, to])
        return try tasks.count(where: #Predicate { $0.projectID == "gemini" })  // 1: the move is seen
    }
    // Sources/DAOKit/DAOKit.docc/Transactions.md:131
    let projects = ProjectDao(context: context)
    let reopened = try projects.update(id: "gemini") { $0.openTasks += 1 }
    assert(reopened == Project(id: "gemini", openTasks: 2))
    let nothing = try projects.update(id: "mercury") { $0.openTasks += 1 }
    assert(nothing == nil)  // nothing stored under "mercury": the closure did not run
    // Every top-level constant and variable of the samples, read once.
    _ = context
    _ = stored
    _ = secondTask
    _ = inGemini
    _ = projects
    _ = reopened
    _ = nothing
}
