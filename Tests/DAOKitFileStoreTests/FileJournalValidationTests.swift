import DAOKitStoreFormat
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

/// A whole journal (its checksum matches) that names paths the store never writes is corrupt or
/// crafted: opening, reading and writing report it and change nothing, inside or outside the store.
@Suite("File journal validation")
struct FileJournalValidationTests {
    /// Names a journal must not carry: a directory or file name that is not a single, encoded path
    /// component.
    static let hostileNames: [(directoryName: String, fileName: String)] = [
        ("..", "victim.json"),
        ("../outside", "victim.json"),
        (".", "victim.json"),
        ("^file^note/../..", "victim.json"),
        ("", "victim.json"),
        ("^file^note", "../../outside/victim.json"),
        ("^file^note", ".."),
        ("^file^note", ".lock"),
        ("^file^note", "a\u{0}.json"),
        ("^file^note", "Upper.json"),
        ("^file^note", "a.plist"),
        ("^file^note", "a.txt"),
    ]

    @Test("opening over a journal with a hostile name changes nothing", arguments: hostileNames)
    func openingRefusesAJournalWithAHostileName(_ names: (directoryName: String, fileName: String)) throws {
        try FileTestDirectory.with { directory in
            let outside = directory.path + "-outside"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: outside) }
            try Data("precious".utf8).write(to: URL(fileURLWithPath: outside + "/victim.json"))
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "a")])
            // Would delete outside/victim.json and create outside/planted.json if rolled back.
            let journal = Journal(
                directoryName: names.directoryName,
                entries: [
                    .init(fileName: names.fileName, previousContents: nil),
                    .init(
                        fileName: names.fileName.replacingOccurrences(of: "victim", with: "planted"),
                        previousContents: Data("x".utf8)),
                ])
            let journalBytes = journal.serialized()
            let journalURL = directory.url.appendingPathComponent(".journal")
            try journalBytes.write(to: journalURL)
            let before = try directory.snapshot()

            let error = try #require(throws: StorageError.self) { try FileStorageContext(directory: directory.url) }
            guard error.code == .corruptRecord, let detail = error.kind.detail else {
                Issue.record("\(error)")
                return
            }
            #expect(detail.contains("is not one the store writes"), "\(error)")
            #expect(error.location == directory.path + "/.journal")
            #expect(try directory.snapshot() == before)
            #expect(try Data(contentsOf: journalURL) == journalBytes, "neither rolled back nor discarded")
            #expect(FileManager.default.fileExists(atPath: outside + "/victim.json"))
            #expect(!FileManager.default.fileExists(atPath: outside + "/planted.json"))
        }
    }

    @Test func readsAndWritesOfAnOpenStoreReportAHostileJournalAndChangeNothing() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([FileNote(id: "a", text: "a"), FileNote(id: "b", text: "b")])
            _ = try context.fetch(FileNote.self, id: "a")
            // Rolled back, it would create <parent of the store>/<store name>-escaped/x.json.
            let escaped = directory.url.lastPathComponent + "-escaped"
            let journal = Journal(
                directoryName: "../" + escaped, entries: [.init(fileName: "x.json", previousContents: Data("x".utf8))])
            try journal.serialized().write(to: directory.url.appendingPathComponent(".journal"))
            let before = try directory.snapshot()

            for attempt in [
                { _ = try context.fetch(FileNote.self, id: "a") },
                { _ = try context.fetchAll(FileNote.self) },
                { try context.save([FileNote(id: "c", text: "c"), FileNote(id: "d", text: "d")]) },
                { try context.deleteAll(FileNote.self) },
            ] as [() throws -> Void] {
                let error = try #require(throws: StorageError.self) { try attempt() }
                guard case .corruptRecord = error.kind else {
                    Issue.record("\(error)")
                    continue
                }
                #expect(error.location == directory.path + "/.journal")
            }
            #expect(try directory.snapshot() == before)
            #expect(
                !FileManager.default.fileExists(atPath: directory.url.deletingLastPathComponent().path + "/" + escaped))
        }
    }

    @Test func theStoresOwnNamesPassAndOthersDoNot() {
        let store = Journal(
            directoryName: "^file^note",
            entries: [
                .init(fileName: "a.json", previousContents: nil), .init(fileName: "%.json", previousContents: nil),
                .init(fileName: "#" + String(repeating: "0f", count: 32) + ".json", previousContents: nil),
            ])
        #expect(store.nameProblem(fileExtensions: ["json"]) == nil)
        #expect(Journal(directoryName: "#" + String(repeating: "a", count: 64), entries: []).nameProblem() == nil)
        for (directoryName, fileName) in Self.hostileNames {
            let journal = Journal(
                directoryName: directoryName, entries: [.init(fileName: fileName, previousContents: nil)])
            #expect(
                journal.nameProblem(fileExtensions: ["json"]) != nil,
                "\(directoryName.debugDescription) \(fileName.debugDescription)")
        }
    }
}
