// The file-storage code sample of README.md, kept compiling and passing here.
import DAOKit
import DAOKitFileStore
import Foundation
import Testing

@Suite("README file storage samples")
struct ReadmeFileSamplesTests {
    @Test func openingAFileStore() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("readme-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let url = root.appendingPathComponent("binary")
        // README: File storage (the first line with /var/lib/app/store in the README)
        let context = try FileStorageContext(directory: root.appendingPathComponent("store"))
        let binary  = try FileStorageContext(directory: url, format: .propertyList)
        // end of README sample
        for store in [context, binary] {
            try store.save([FixtureNote(id: "42", text: "hi")])
            #expect(try store.fetch(FixtureNote.self, id: "42")?.text == "hi")
        }
        let json = try String(contentsOf: root.appendingPathComponent("store/^fixture^note/42.json"), encoding: .utf8)
        #expect(json == #"{"entity":{"id":"42","text":"hi"},"formatVersion":1,"key":"42"}"#)
    }
}

private struct FixtureNote: Storable {
    var id: String
    var text: String
}
