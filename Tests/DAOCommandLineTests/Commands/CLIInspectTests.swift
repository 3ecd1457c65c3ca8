import DAOKit
import DAOKitStoreFormat
import Foundation
import Testing

@Suite("CLI inspect")
struct CLIInspectTests {
    @Test func inspectDescribesAHealthyStore() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(3)
            try context.save([CLIReading(id: 1, value: 1, count: 1, taken: Date(), raw: Data(), isValid: true)])
            let sizes = try ["n0", "n1", "n2"].map {
                try Data(contentsOf: context.fileURL(for: CLINote.self, id: $0)).count
            }
            let run = dao("inspect", store.path)
            #expect(run.status == 0)
            #expect(run.errors.isEmpty)
            let lines = run.outputLines
            #expect(lines.first == "Store      \(store.path)")
            #expect(lines.contains("Format     JSON (.json), format version 2"))
            #expect(lines.contains("Lock file  .lock present"))
            #expect(lines.contains("Journal    empty (every batch finished)"))
            #expect(
                lines.contains {
                    $0.hasPrefix("Note") && $0.contains("^note") && $0.contains("  3  1: 3 ")
                        && $0.hasSuffix(" \(sizes.reduce(0, +)) B")
                })
            #expect(lines.contains { $0.hasPrefix("Reading") && $0.contains("^reading") })
            #expect(lines.contains { $0.hasPrefix("Total") && $0.contains(" 4 ") })
            #expect(lines.last == "Leftovers: none")
        }
    }

    @Test func inspectNamesTheBinaryPropertyListFormat() throws {
        try CLIStore.with { store in
            try store.withNotes(2, format: .propertyList)
            #expect(
                dao("inspect", store.path).outputLines.contains(
                    "Format     binary property list (.plist), format version 2"))
        }
    }

    @Test func inspectCountsTheFormatVersionsAndUnreadableRecordsItFinds() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(4)
            let n0 = URL(fileURLWithPath: store.notePath("n0", in: context))
            // As an earlier release wrote it: version 1, no checksum.
            try Data(#"{"entity":{"id":"n0","number":0,"text":"note 0"},"formatVersion":1,"key":"n0"}"#.utf8).write(
                to: n0)
            try Data("garbage".utf8).write(to: URL(fileURLWithPath: store.notePath("n1", in: context)))
            let run = dao("inspect", store.path)
            #expect(run.status == 0)
            #expect(
                run.outputLines.contains("Format     JSON (.json), format versions 1 × 1, 2 × 2; 1 unreadable record"))
            #expect(run.outputLines.last == "Run 'dao verify \(store.path)' for every problem, one per line.")
        }
    }

    @Test func inspectCountsRecordsPerEntityVersionAndVerifyNotesTheNewest() throws {
        try CLIStore.with { store in
            let context = try store.context()
            try context.save((1...3).map { CLITaskV1(id: $0, title: "t\($0)") })
            try context.save((4...5).map { CLITaskV2(id: $0, title: "t\($0)", points: 1) })
            let inspect = dao("inspect", store.path)
            #expect(inspect.status == 0, "\(inspect.errors)")
            #expect(
                inspect.outputLines.contains { $0.hasPrefix("Task") && $0.contains("  5  1: 3, 2: 2  ") },
                "\(inspect.output)")
            let verify = dao("verify", store.path)
            #expect(verify.status == 0, "\(verify.output)")
            #expect(
                verify.outputLines.contains {
                    $0.hasPrefix("note: \(store.path)/")
                        && $0.hasSuffix(
                            ": Task: 2 records of version 2, newer than the other 3 (version 1): code that reads up to version 1 can neither read nor replace them"
                        )
                }, "\(verify.output)")
            #expect(verify.outputLines.last?.hasPrefix("OK: ") == true, "a note is no problem: \(verify.output)")
            // One version: nothing to note.
            try context.save((1...3).map { CLITaskV2(id: $0, title: "t\($0)", points: 1) })
            #expect(!dao("verify", store.path).output.contains("note:"))
        }
    }

    @Test func verifyReportsADataVersionThatIsNoVersion() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(1)
            let n0 = URL(fileURLWithPath: store.notePath("n0", in: context))
            try Data(
                #"{"dataVersion":"two","entity":{"id":"n0","number":0,"text":"note 0"},"formatVersion":1,"key":"n0"}"#
                    .utf8
            ).write(to: n0)
            let verify = dao("verify", store.path)
            #expect(verify.status == 1)
            #expect(
                verify.outputLines.contains(
                    "\(n0.path): the record's \"dataVersion\" field is a string, not an entity version"),
                "\(verify.output)")
        }
    }

    @Test func inspectReportsAStoreThatNoBatchHasTouchedYet() throws {
        try CLIStore.with { store in
            try store.context().save([CLINote(id: "only", text: "single write")])
            #expect(dao("inspect", store.path).outputLines.contains("Journal    none (no batch has run yet)"))
        }
    }

    @Test func inspectReportsAnUnfinishedJournalAndATornOne() throws {
        try CLIStore.with { store in
            try store.withNotes(2)
            try store.writeUnfinishedJournal(
                entityDirectory: "^note", entries: [("n0.json", nil), ("n1.json", Data("{}".utf8))])
            #expect(
                dao("inspect", store.path).outputLines.contains(
                    "Journal    UNFINISHED batch of 2 changes to Note (the next open rolls it back)"))
            try store.write("DAOKJRN1", to: ".journal")
            #expect(
                dao("inspect", store.path).outputLines.contains("Journal    torn, 8 bytes (the next open discards it)"))
        }
    }

    @Test func inspectListsLeftoverTemporaryFilesTrashAndForeignFiles() throws {
        try CLIStore.with { store in
            try store.withNotes(1)
            try store.write("x", to: "^note/.tmp-abc")
            try store.write("x", to: "^note/n0.json.orig")
            try store.write("x", to: "notes.txt")
            try FileManager.default.createDirectory(
                at: store.url.appendingPathComponent(".trash-99"), withIntermediateDirectories: false)
            let lines = dao("inspect", store.path).outputLines
            let start = try #require(lines.firstIndex(of: "Leftovers:"))
            #expect(
                Array(lines[(start + 1)...].prefix(4)) == [
                    "  .trash-99/  (an unfinished deleteAll's directory)",
                    "  ^note/.tmp-abc  (an unfinished write's temporary file)",
                    "  ^note/n0.json.orig  (not a record file)",
                    "  notes.txt  (not part of the store)",
                ])
        }
    }

    @Test func inspectOfAFreshlyOpenedStoreSaysItHasNoEntities() throws {
        try CLIStore.with { store in
            _ = try store.context()
            let run = dao("inspect", store.path)
            #expect(run.status == 0)
            #expect(run.outputLines.contains("No entities yet."))
            #expect(run.outputLines.contains("Format     no records yet"))
        }
    }

    @Test func inspectShowsTheEntityDirectoryWhenTheNameIsHashed() throws {
        try CLIStore.with { store in
            struct LongNamed: Storable {
                static var entityName: String { String(repeating: "Entity", count: 50) }
                var id: Int
            }
            let context = try store.context()
            try context.save([LongNamed(id: 1)])
            let size = try Data(contentsOf: context.fileURL(for: LongNamed.self, id: 1)).count
            let lines = dao("inspect", store.path).outputLines
            #expect(lines.contains { $0.hasPrefix("#") && $0.contains(" 1  1: 1 ") && $0.hasSuffix(" \(size) B") })
            // dump still finds it by its real name.
            #expect(dao("dump", store.path, LongNamed.entityName).status == 0)
        }
    }

    @Test func inspectChangesNothingInTheDirectory() throws {
        try CLIStore.with { store in
            try store.withNotes(2)
            try store.writeUnfinishedJournal(entityDirectory: "^note", entries: [("n0.json", nil)])
            try store.write("x", to: "^note/.tmp-1")
            let before = try store.snapshot()
            #expect(dao("inspect", store.path).status == 0)
            #expect(try store.snapshot() == before)
        }
    }

    @Test func inspectOfAMissingDirectoryIsAUsageError() {
        dao("inspect", "/nonexistent/daokit-store").expectUsageError(
            startingWith: "dao inspect: no such directory: /nonexistent/daokit-store")
    }

    @Test func inspectOfAFileIsAUsageError() throws {
        try CLIStore.with { store in
            try FileManager.default.createDirectory(at: store.url, withIntermediateDirectories: true)
            try store.write("x", to: "file")
            dao("inspect", store.path + "/file").expectUsageError(
                startingWith: "dao inspect: not a directory: \(store.path)/file")
        }
    }

    @Test func inspectOfAnEmptyDirectoryIsAUsageErrorSayingItIsNotAStore() throws {
        try CLIStore.with { store in
            try FileManager.default.createDirectory(at: store.url, withIntermediateDirectories: true)
            dao("inspect", store.path).expectUsageError(
                startingWith:
                    "dao inspect: \(store.path) is not a DAOKit file store (no .lock file, no .journal and no record folders)"
            )
        }
    }
}
