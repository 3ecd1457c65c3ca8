// swift-format-ignore-file
// Generated from Sources/DAOKit/DAOKit.docc/Mapping.md by `swift run generate-doc-samples`: do not edit.
// Edit the document and run the command; DocSampleFreshnessTests fails while this file is stale.
// The rules: CONTRIBUTING.md, "Code samples in documentation".
import DAOKit
import Foundation
import Testing

// Sources/DAOKit/DAOKit.docc/Mapping.md:15
private struct Note: Codable, Equatable {        // the app's plain value
    let id: Int
    let text: String
    let date: Date
    let attachment: URL?
}

// Sources/DAOKit/DAOKit.docc/Mapping.md:22
private final class NoteRecord: Codable {        // what a store keeps: the same field names
    var id = 0
    var text = ""
    var date = Date.distantPast
    var attachment: URL?
}

// Sources/DAOKit/DAOKit.docc/Mapping.md:68
private struct NotePreview: Codable {
    let id: Int
    let text: String
}

// Sources/DAOKit/DAOKit.docc/Mapping.md:94
private struct Setting: Codable {
    var level: Int8
}

/// Runs the statements of Sources/DAOKit/DAOKit.docc/Mapping.md's samples in document order.
@Test("Sources/DAOKit/DAOKit.docc/Mapping.md: its samples compile and run")
func mappingSamples() throws {
    // Sources/DAOKit/DAOKit.docc/Mapping.md:12
    let mapper = EntityMapper()
    let note = Note(id: 1, text: "Hello", date: Date(), attachment: nil)
    let record = try mapper.map(note, to: NoteRecord.self)
    let roundTripped = try mapper.map(record, to: Note.self)
    assert(roundTripped == note)
    // Sources/DAOKit/DAOKit.docc/Mapping.md:68
    let preview = try EntityMapper().map(note, to: NotePreview.self)   // fine: `date` is ignored
    do {
        _ = try EntityMapper(strict: true).map(note, to: NotePreview.self)
        assertionFailure("a strict mapper reports the dropped field")
    } catch let error as MappingError {
        print(error)  // Cannot map Note to NotePreview: the target never reads this key at date
    }
    // Sources/DAOKit/DAOKit.docc/Mapping.md:94
    var outcome = ""
    do {
        _ = try EntityMapper().map(["level": 300], to: Setting.self)
    } catch MappingError.Code.numberNotRepresentable {
        outcome = "out of range"          // a code matches in `catch`, in a `switch`, or with `==`
    } catch let error as MappingError {
        switch error.code {               // codes can be added in any release: a switch needs `default:`
        case .typeMismatch: outcome = "expected \(error.kind.expectedType ?? "?"), found \(error.kind.found ?? "?")"
        default: outcome = error.description
        }
    }
    assert(outcome == "out of range")
    // Every top-level constant and variable of the samples, read once.
    _ = mapper
    _ = note
    _ = record
    _ = roundTripped
    _ = preview
    _ = outcome
}
