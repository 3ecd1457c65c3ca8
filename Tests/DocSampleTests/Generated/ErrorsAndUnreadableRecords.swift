// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/ErrorsAndUnreadableRecords.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/ErrorsAndUnreadableRecords.md:66
private enum Priority: String, Codable {
    case low, high
}

// Sources/DAOKit/DAOKit.docc/ErrorsAndUnreadableRecords.md:70
private struct Todo: Codable, Identifiable {
    var id: Int
    var title: String
    var priority: Priority
}

// Sources/DAOKit/DAOKit.docc/ErrorsAndUnreadableRecords.md:76
private struct TodoEntity: Storable {
    static let entityName = "Todo"
    var id: Int
    var title: String
    var priority: Priority
}

// Sources/DAOKit/DAOKit.docc/ErrorsAndUnreadableRecords.md:83
// What a later version of the app stored: a priority this version does not know.
private struct LaterTodoEntity: Storable {
    static let entityName = "Todo"
    var id: Int
    var title: String
    var priority: String
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/ErrorsAndUnreadableRecords.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/ErrorsAndUnreadableRecords.md: its samples compile and run")
func errorsAndUnreadableRecordsSamples() throws {
    // Sources/DAOKit/DAOKit.docc/ErrorsAndUnreadableRecords.md:63
    let context = InMemoryStorageContext()
    try context.save([LaterTodoEntity(id: 2, title: "From the future", priority: "urgent")])
    let todos = BaseDao<Todo, TodoEntity>(context: context)
    try todos.persist(Todo(id: 1, title: "Buy milk", priority: .low))

    let found = try todos.readReadable()   // a bad record is reported, not thrown
    print(found.values.map(\.title))      // ["Buy milk"]
    for failure in found.failures {
        print(failure)                     // Todo "2": the record could not be decoded at …
    }
    let everyID = try todos.storedIDs()    // readable or not: [1, 2]
    // Drop what this version cannot read (or keep it for the version that can):
    try todos.erase(storageKeys: found.failures.compactMap(\.storageKey))
    let remaining = try todos.count()
    assert(remaining == 1 && everyID.count == 2)
    // Every top-level constant and variable of the samples, read once.
    _ = context
    _ = todos
    _ = found
    _ = everyID
    _ = remaining
}
