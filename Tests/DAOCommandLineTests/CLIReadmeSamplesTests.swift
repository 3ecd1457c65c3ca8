// The outputs the `dao` tool's article (Sources/DAOKit/DAOKit.docc/DaoTool.md) shows for its sample
// store, checked verbatim here. When you change one, change the other. The article's store directory
// is `chat-store`; here it is a temporary directory, whose path the expected output gets in place of
// `chat-store`.
import DAOKit
import DAOKitFileStore
import DAOKitStoreFormat
import Foundation
import Testing

@Suite("CLI README samples")
struct CLIReadmeSamplesTests {
    /// Writes the README's sample store into `directory`.
    private func writeSampleStore(_ directory: URL) throws {
        typealias Message = Readme.Message
        typealias MessageEntity = Readme.MessageEntity
        // README: Command-line tool — a store to look into
        let store = try FileStorageContext(directory: directory)  // README: URL(fileURLWithPath: "chat-store")
        let messages = BaseDao<Message, MessageEntity>(context: store)
        try messages.persist(
            Message(
                id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, dialogID: "family",
                author: "mum", text: "Dinner at 7?", date: Date(timeIntervalSinceReferenceDate: 736_000_000),
                isRead: false))
        // end of README sample
    }

    /// `text` with the README's directory name replaced by the test's.
    private func expected(_ text: String, in store: CLIStore) -> [String] {
        text.replacingOccurrences(of: "chat-store", with: store.path).split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
    }

    @Test func inspectPrintsWhatTheReadmeShows() throws {
        try CLIStore.with { store in
            try writeSampleStore(store.url)
            let run = dao("inspect", store.path)
            #expect(run.status == 0)
            #expect(
                run.outputLines
                    == expected(
                        """
                        Store      chat-store
                        Format     JSON (.json), format version 2
                        Lock file  .lock present
                        Journal    none (no batch has run yet)

                        Entity         Directory        Records  Versions   Size
                        MessageEntity  ^message^entity        1  1: 1      230 B
                        Total                                 1            230 B

                        Leftovers: none
                        """, in: store))
        }
    }

    @Test func dumpPrintsWhatTheReadmeShows() throws {
        try CLIStore.with { store in
            try writeSampleStore(store.url)
            let run = dao("dump", store.path, "MessageEntity")
            #expect(run.status == 0)
            #expect(
                run.output == """
                    {
                      "E621E1F8-C36C-495A-93FC-0C247A3E6E5F": {
                        "author": "mum",
                        "date": 736000000,
                        "dialogID": "family",
                        "id": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                        "isRead": false,
                        "text": "Dinner at 7?"
                      }
                    }

                    """)
        }
    }

    @Test func verifyOfTheDamagedStorePrintsWhatTheReadmeShows() throws {
        try CLIStore.with { store in
            try writeSampleStore(store.url)
            // The README's damage: a copy of the record under another name, a half-written
            // temporary file, and a journal cut short.
            let entityDirectory = store.url.appendingPathComponent("^message^entity")
            let record = entityDirectory.appendingPathComponent(
                "^e621^e1^f8-^c36^c-495^a-93^f^c-0^c247^a3^e6^e5^f.json")
            try FileManager.default.copyItem(at: record, to: entityDirectory.appendingPathComponent("copy.json"))
            try Data("{\"entity\":".utf8).write(to: entityDirectory.appendingPathComponent(".tmp-3f2a"))
            try Data("DAOKJRN1".utf8).write(to: store.url.appendingPathComponent(".journal"))
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines
                    == expected(
                        """
                        chat-store/.journal: a torn journal (8 bytes, its checksum does not match); the next open of the store discards it
                        chat-store/^message^entity/.tmp-3f2a: the temporary file of a write that did not finish; the next open of the store removes it
                        chat-store/^message^entity/copy.json: the file name does not match the key inside, "E621E1F8-C36C-495A-93FC-0C247A3E6E5F" (its file would be ^e621^e1^f8-^c36^c-495^a-93^f^c-0^c247^a3^e6^e5^f.json)
                        3 problems in chat-store (2 records of 1 entity type checked, envelopes only: entities are not decoded)
                        """, in: store))
        }
    }
}
