// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/FileStoreFormat.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import DAOKitFileStore
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/FileStoreFormat.md:17
private struct Note: Codable, Identifiable {
    var id: String
    var text: String
}

// Sources/DAOKit/DAOKit.docc/FileStoreFormat.md:22
private struct NoteEntity: Storable {
    static let entityName = "Note"
    var id: String
    var text: String
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/FileStoreFormat.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/FileStoreFormat.md: its samples compile and run")
func fileStoreFormatSamples() throws {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("doc-sample-FileStoreFormat-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // Sources/DAOKit/DAOKit.docc/FileStoreFormat.md:13
    let json = try FileStorageContext(directory: folder.appendingPathComponent("store"))
    let binary = try FileStorageContext(directory: folder.appendingPathComponent("plist-store"), format: .propertyList)
    try BaseDao<Note, NoteEntity>(context: json).persist(Note(id: "42", text: "hi"))
    try BaseDao<Note, NoteEntity>(context: binary).persist(Note(id: "42", text: "hi"))
    let recordFile = folder.appendingPathComponent("store/^note/42.json")
    let record = try String(contentsOf: recordFile, encoding: .utf8)
    assert(record == #"{"checksum":"8595fd4d","entity":{"id":"42","text":"hi"},"formatVersion":2,"key":"42"}"#)
    // Every top-level constant and variable of the samples, read once.
    _ = json
    _ = binary
    _ = recordFile
    _ = record
}
