import DAOKit
import DAOKitFileStore
import DAOKitStoreFormat
import Foundation
import Testing

@Suite("CLI verify")
struct CLIVerifyTests {
    /// Hand-made damage to note `n1`'s record file, and the problem `verify` must report.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case truncated, empty, randomBytes, wrongFormatVersion, noKeyField, keyOfTheWrongType, notAnEnvelope, directory
        var testDescription: String { rawValue }

        @discardableResult
        func apply(to path: String) throws -> String {
            let url = URL(fileURLWithPath: path)
            let text = String(decoding: try Data(contentsOf: url), as: UTF8.self)
            switch self {
            case .truncated:
                try Data(text.utf8.prefix(text.utf8.count - 5)).write(to: url)
                // Counted in the envelope after its checksum (`{"checksum":"…",` is 23 bytes, `{` 1).
                return "truncated: the JSON ends at byte \(text.utf8.count - 5 - 22) in the middle of a value"
            case .empty:
                try Data().write(to: url)
                return "empty file"
            case .randomBytes:
                try Data((0..<64).map { UInt8(0x80 | ($0 * 37 % 128)) }).write(to: url)
                return "not valid JSON: unexpected byte 0x80 where a value should start at byte 0"
            case .wrongFormatVersion:
                try Data(text.replacingOccurrences(of: #""formatVersion":2"#, with: #""formatVersion":7"#).utf8).write(
                    to: url)
                return "format version 7 is not supported; this release reads versions 1 and 2"
            case .noKeyField:
                try Data(text.replacingOccurrences(of: #","key":"n1""#, with: "").utf8).write(to: url)
                return #"the record has no "key" field"#
            case .keyOfTheWrongType:
                try Data(text.replacingOccurrences(of: #""key":"n1""#, with: #""key":1"#).utf8).write(to: url)
                return #"the record's "key" field is a number, not a string"#
            case .notAnEnvelope:
                try Data("[1, 2, 3]".utf8).write(to: url)
                return "not a record envelope: the top level is an array, not an object"
            case .directory:
                try FileManager.default.removeItem(at: url)
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
                return "a directory is where a record file should be"
            }
        }
    }

    @Test func verifyPassesAStoreWrittenByFileStorageContext() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(5)
            // Keys that need every rule of the name encoding, including a hashed over-long name.
            let awkward = [
                "a/b", "UPPER", ".hidden", "", "%^", "caf\u{E9}", "..", String(repeating: "long", count: 80),
            ]
            try context.save(awkward.map { CLINote(id: $0, text: "awkward") })
            try context.save([
                CLIReading(
                    id: 7, value: 0.1, count: .max, taken: Date(timeIntervalSinceReferenceDate: 1.5),
                    raw: Data([0, 255]), isValid: true, note: nil)
            ])
            try context.delete(CLINote.self, ids: ["n4"])
            let run = dao("verify", store.path)
            #expect(run.status == 0, "\(run.output)")
            #expect(run.errors.isEmpty)
            #expect(
                run.outputLines == [
                    "OK: \(store.path) is sound (13 records of 2 entity types checked, envelopes only: entities are not decoded)"
                ])
            // A trailing slash names the same directory, and paths are printed without it.
            #expect(dao("verify", store.path + "/").output == run.output)
        }
    }

    @Test func verifyPassesABinaryPropertyListStore() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(3, format: .propertyList)
            try context.save([
                CLIReading(id: -3, value: .infinity, count: .min, taken: Date(), raw: Data(), isValid: false, note: "x")
            ])
            let run = dao("verify", store.path)
            #expect(run.status == 0, "\(run.output)")
            #expect(
                run.outputLines.last
                    == "OK: \(store.path) is sound (4 records of 2 entity types checked, envelopes only: entities are not decoded)"
            )
        }
    }

    @Test("a damaged record is one line naming its file, and exit status 1", arguments: Damage.allCases)
    func verifyReportsADamagedRecord(_ damage: Damage) throws {
        try CLIStore.with { store in
            let context = try store.withNotes()
            let path = store.notePath("n1", in: context)
            let problem = try damage.apply(to: path)
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(run.errors.isEmpty)
            #expect(
                run.outputLines == [
                    "\(path): \(problem)",
                    "1 problem in \(store.path) (4 records of 1 entity type checked, envelopes only: entities are not decoded)",
                ])
        }
    }

    @Test func verifyReportsARecordWhoseFileNameDoesNotMatchItsKey() throws {
        try CLIStore.with { store in
            let context = try store.withNotes()
            let original = store.notePath("n1", in: context)
            let renamed = (original as NSString).deletingLastPathComponent + "/n9.json"
            try FileManager.default.moveItem(atPath: original, toPath: renamed)
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines.first
                    == "\(renamed): the file name does not match the key inside, \"n1\" (its file would be n1.json)")
            #expect(run.outputLines.count == 2)
        }
    }

    @Test func verifyReportsARecordRenamedSoTheStoreNoLongerSeesIt() throws {
        try CLIStore.with { store in
            let context = try store.withNotes()
            let original = store.notePath("n1", in: context)
            try FileManager.default.moveItem(atPath: original, toPath: original + ".bak")
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines.first
                    == "\(original).bak: not a record file (records end in .json or .plist), so the store never reads it"
            )
        }
    }

    @Test func verifyReportsAnUnfinishedJournalThatTheStoreThenRollsBack() throws {
        try CLIStore.with { store in
            let context = try store.withNotes()
            let oldN1 = try Data(contentsOf: URL(fileURLWithPath: store.notePath("n1", in: context)))
            // As if a batch had rewritten n1 and created n7, then the process died before committing.
            try context.save([CLINote(id: "n1", text: "half-written"), CLINote(id: "n7", text: "new")])
            try store.writeUnfinishedJournal(entityDirectory: "^note", entries: [("n1.json", oldN1), ("n7.json", nil)])

            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines.first
                    == "\(store.path)/.journal: a batch of 2 changes to Note did not finish; the next open of the store rolls it back"
            )
            #expect(run.outputLines.count == 2)

            // The journal verify described is one the real store recognizes and rolls back.
            let reopened = try store.context()
            #expect(try reopened.fetch(CLINote.self, id: "n1")?.text == "note 1")
            #expect(try reopened.fetch(CLINote.self, id: "n7") == nil)
            #expect(dao("verify", store.path).status == 0)
        }
    }

    @Test func verifyReportsAWholeJournalNamingPathsOutsideTheStoreAndTheStoreRefusesIt() throws {
        try CLIStore.with { store in
            try store.withNotes()
            try store.writeUnfinishedJournal(entityDirectory: "../outside", entries: [("victim.json", nil)])
            let journal = try Data(contentsOf: store.url.appendingPathComponent(".journal"))

            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines.first
                    == "\(store.path)/.journal: cannot be read: the journal is whole but its entity directory name "
                    + "\"../outside\" is not one the store writes; the store will not open until it is removed by hand")

            // The store agrees, and neither rolls the journal back nor discards it.
            let error = try #require(throws: StorageError.self) { try store.context() }
            #expect(error.location == store.path + "/.journal")
            #expect(try Data(contentsOf: store.url.appendingPathComponent(".journal")) == journal)
        }
    }

    @Test func verifyReportsATornJournal() throws {
        try CLIStore.with { store in
            try store.withNotes()
            try store.write("DAOKJRN1 cut short", to: ".journal")
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines.first
                    == "\(store.path)/.journal: a torn journal (18 bytes, its checksum does not match); the next open of the store discards it"
            )
        }
    }

    @Test func verifyReportsLeftoverTemporaryFilesAndTrashDirectories() throws {
        try CLIStore.with { store in
            try store.withNotes()
            try store.write("{\"partial", to: "^note/.tmp-5eed")
            try FileManager.default.createDirectory(
                at: store.url.appendingPathComponent(".trash-1234/^note"), withIntermediateDirectories: true)
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines == [
                    "\(store.path)/.trash-1234: the entity directory of a deleteAll that did not finish; the next open of the store deletes it",
                    "\(store.path)/^note/.tmp-5eed: the temporary file of a write that did not finish; the next open of the store removes it",
                    "2 problems in \(store.path) (4 records of 1 entity type checked, envelopes only: entities are not decoded)",
                ])
            _ = try store.context()  // recovery on open removes both
            #expect(dao("verify", store.path).status == 0)
        }
    }

    @Test func verifyReportsAnUnfinishedResetAsOneTheNextOpenCompletes() throws {
        try CLIStore.with { store in
            try store.withNotes(2)
            // What a reset that crashed after recording its intent leaves in the journal.
            try ResetIntent.bytes.write(to: store.url.appendingPathComponent(".journal"))
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines.contains(
                    "\(store.path)/.journal: a reset of every entity type did not finish; the next open of the "
                        + "store completes it, removing every record"), "\(run.outputLines)")
            #expect(!run.output.contains("torn"), "\(run.output)")
        }
    }

    @Test func verifyPassesTheChangeLogWritesLeaveAndReportsADamagedOne() throws {
        try CLIStore.with { store in
            try store.withNotes(3)  // every write logs its records in .changes
            #expect(FileManager.default.fileExists(atPath: store.path + "/.changes"))
            #expect(dao("verify", store.path).status == 0)
            try store.write("^c^l^i^note/n1.json\ngarbage\n", to: ".changes")
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines.contains(
                    "\(store.path)/.changes: 1 line that name no record; processes with a query cache may miss "
                        + "the change they stood for until they reopen the store"), "\(run.outputLines)")
        }
    }

    @Test func verifyReportsAChangeLogThatIsNotARegularFile() throws {
        try CLIStore.with { store in
            try store.withNotes(1)
            try FileManager.default.removeItem(atPath: store.path + "/.changes")
            try FileManager.default.createDirectory(
                atPath: store.path + "/.changes", withIntermediateDirectories: false)
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines.contains(
                    "\(store.path)/.changes: not a regular file; every write to the store fails until it is removed"),
                "\(run.outputLines)")
        }
    }

    @Test func verifyReportsFilesThatAreNotPartOfTheStore() throws {
        try CLIStore.with { store in
            try store.withNotes()
            try store.write("hello", to: "README.txt")
            try FileManager.default.createDirectory(
                at: store.url.appendingPathComponent("Not Encoded"), withIntermediateDirectories: false)
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines.filter {
                    $0.hasSuffix(
                        "not part of the store (its directory holds only entity directories and the store's dot-files)")
                }
                .count == 2)
        }
    }

    @Test func verifyReportsRecordsInBothFormats() throws {
        try CLIStore.with { store in
            try store.withNotes(2, format: .json)
            // A property-list record planted beside them (a context refuses to write one there).
            try CLIStore.with { other in
                let plist = try other.context(.propertyList)
                try plist.save([CLINote(id: "p", text: "plist")])
                try FileManager.default.copyItem(
                    atPath: other.notePath("p", in: plist), toPath: store.path + "/^note/p.plist")
            }
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines.first == "\(store.path): records in more than one format (2 .json, 1 .plist); "
                    + "a FileStorageContext opens a store of one format only, so it opens this one with neither")
        }
    }

    @Test func verifyReportsOneLinePerProblemInAStoreDamagedByHand() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(6)
            try Damage.truncated.apply(to: store.notePath("n0", in: context))
            try FileManager.default.moveItem(
                atPath: store.notePath("n1", in: context), toPath: store.path + "/^note/n1-copy.json")
            try store.write("DAOKJRN1", to: ".journal")
            try store.write("", to: "^note/.tmp-0")
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(run.outputLines.count == 5)
            #expect(
                run.outputLines.last
                    == "4 problems in \(store.path) (6 records of 1 entity type checked, envelopes only: entities are not decoded)"
            )
            #expect(
                Set(run.outputLines.dropLast().map { String($0.prefix { $0 != ":" }) }) == [
                    store.path + "/.journal", store.path + "/^note/.tmp-0", store.path + "/^note/n0.json",
                    store.path + "/^note/n1-copy.json",
                ])
        }
    }

    @Test func verifyChangesNothingInTheDirectory() throws {
        try CLIStore.with { store in
            let context = try store.withNotes()
            try store.writeUnfinishedJournal(entityDirectory: "^note", entries: [("n1.json", nil)])
            try store.write("x", to: "^note/.tmp-1")
            try Damage.truncated.apply(to: store.notePath("n2", in: context))
            let before = try store.snapshot()
            #expect(dao("verify", store.path).status == 1)
            #expect(try store.snapshot() == before)
        }
    }

    @Test func verifyOfAMissingDirectoryIsAUsageError() {
        dao("verify", "/nonexistent/daokit-store").expectUsageError(
            startingWith: "dao verify: no such directory: /nonexistent/daokit-store")
    }

    @Test func verifyOfADirectoryThatIsNotAStoreIsAUsageError() throws {
        try CLIStore.with { store in
            try FileManager.default.createDirectory(
                at: store.url.appendingPathComponent("photos"), withIntermediateDirectories: true)
            dao("verify", store.path).expectUsageError(
                startingWith: "dao verify: \(store.path) is not a DAOKit file store")
        }
    }

    @Test func verifyOfAFileIsAUsageError() throws {
        try CLIStore.with { store in
            try FileManager.default.createDirectory(at: store.url, withIntermediateDirectories: true)
            try store.write("x", to: "file")
            dao("verify", store.path + "/file").expectUsageError(
                startingWith: "dao verify: not a directory: \(store.path)/file")
        }
    }

    @Test func aRecordWhoseBytesChangedButStillParseIsReported() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(3)
            let path = store.notePath("n1", in: context)
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            try Data(text.replacingOccurrences(of: "note 1", with: "note 7").utf8).write(to: URL(fileURLWithPath: path))
            let run = dao("verify", store.path)
            #expect(run.status == 1)
            #expect(
                run.outputLines.first
                    == "\(path): the record's checksum does not match its bytes: the file changed after it was written",
                "\(run.output)")
        }
    }
}
