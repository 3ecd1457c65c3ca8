import DAOKit
import DAOKitStoreFormat
import Foundation
import Testing

@Suite("CLI dump")
struct CLIDumpTests {
    @Test func dumpPrintsEveryRecordAsJSONKeyedByItsRealID() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(3)
            let awkward = ["a/b", "UPPER case", ".hidden", "", "caf\u{E9} 🙂"]
            try context.save(awkward.map { CLINote(id: $0, text: "awkward \($0)") })
            let run = dao("dump", store.path, "Note")
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.errors.isEmpty)
            let json = try foundationJSON(run.output)
            #expect(Set(json.keys) == Set(["n0", "n1", "n2"] + awkward))
            let caf = try #require(json["caf\u{E9} 🙂"] as? [String: Any])
            #expect(caf["text"] as? String == "awkward caf\u{E9} 🙂")
            #expect(caf["id"] as? String == "caf\u{E9} 🙂")
        }
    }

    @Test func dumpRecoversTheKeyOfAHashedFileNameFromInsideTheRecord() throws {
        try CLIStore.with { store in
            let context = try store.context()
            let longKey = String(repeating: "very long key ", count: 30)
            try context.save([CLINote(id: longKey, text: "long")])
            #expect(context.fileURL(for: CLINote.self, id: longKey).lastPathComponent.hasPrefix("#"))
            let run = dao("dump", store.path, "Note")
            #expect(run.status == 0)
            #expect(try foundationJSON(run.output).keys.sorted() == [longKey])
            #expect(try foundationJSON(dao("dump", store.path, "Note", longKey).output).keys.sorted() == [longKey])
        }
    }

    @Test func dumpWithAKeyPrintsOnlyThatRecord() throws {
        try CLIStore.with { store in
            try store.withNotes(5)
            let run = dao("dump", store.path, "Note", "n3")
            #expect(run.status == 0)
            #expect(
                run.output == """
                    {
                      "n3": {
                        "id": "n3",
                        "number": 3,
                        "text": "note 3"
                      }
                    }

                    """)
        }
    }

    @Test func dumpAcceptsTheEntityDirectoryNameAsWell() throws {
        try CLIStore.with { store in
            try store.withNotes(2)
            #expect(dao("dump", store.path, "^note").output == dao("dump", store.path, "Note").output)
        }
    }

    @Test func dumpKeepsNumbersAndStringsExactlyAsStored() throws {
        try CLIStore.with { store in
            let context = try store.context()
            let reading = CLIReading(
                id: 1, value: 0.1, count: .max, taken: Date(timeIntervalSinceReferenceDate: 0.25),
                raw: Data([1, 2, 3]), isValid: true, note: "quote \" backslash \\ tab \t")
            try context.save([reading])
            let stored = String(
                decoding: try Data(contentsOf: context.fileURL(for: CLIReading.self, id: 1)), as: UTF8.self)
            #expect(stored.contains("\"count\":9223372036854775807"))
            let run = dao("dump", store.path, "Reading")
            #expect(run.output.contains("\"count\": 9223372036854775807,"))
            #expect(run.output.contains("\"value\": 0.1\n"))
            #expect(run.output.contains("\"taken\": 0.25,"))
            #expect(run.output.contains("\"raw\": \"AQID\","))
            #expect(run.output.contains(#""note": "quote \" backslash \\ tab \t","#))
        }
    }

    @Test func dumpReadsABinaryPropertyListStoreLikeAJSONOne() throws {
        try CLIStore.with { plistStore in
            try CLIStore.with { jsonStore in
                let readings = [
                    CLIReading(
                        id: 1, value: 2.5, count: -4, taken: Date(timeIntervalSinceReferenceDate: 10), raw: Data([9]),
                        isValid: true, note: nil),
                    CLIReading(
                        id: 2, value: 3, count: .max, taken: Date(timeIntervalSinceReferenceDate: -1), raw: Data(),
                        isValid: false, note: "n"),
                ]
                try plistStore.context(.propertyList).save(readings)
                try jsonStore.context(.json).save(readings)
                let fromPlist = try foundationJSON(dao("dump", plistStore.path, "Reading").output)
                let fromJSON = try foundationJSON(dao("dump", jsonStore.path, "Reading").output)
                #expect(NSDictionary(dictionary: fromPlist).isEqual(to: fromJSON), "\(fromPlist) vs \(fromJSON)")
                let first = try #require(fromPlist["1"] as? [String: Any])
                #expect(first["isValid"] as? Bool == true)
                #expect(first["count"] as? Int == -4)
            }
        }
    }

    @Test func dumpListsNumericKeysInNumericOrder() throws {
        try CLIStore.with { store in
            try store.context().save(
                [2, 10, 1].map { CLIReading(id: $0, value: 0, count: 0, taken: Date(), raw: Data(), isValid: true) })
            let keys = dao("dump", store.path, "Reading").outputLines.filter { $0.hasPrefix("  \"") }
            #expect(keys.map { $0.prefix { $0 != ":" } } == ["  \"1\"", "  \"2\"", "  \"10\""])
        }
    }

    @Test func dumpOfAnEntityWithNoRecordsLeftPrintsAnEmptyObject() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(2)
            try context.delete(CLINote.self, ids: ["n0", "n1"])
            let run = dao("dump", store.path, "Note")
            #expect(run.status == 0)
            #expect(run.output == "{}\n")
        }
    }

    @Test func dumpSkipsAnUnreadableRecordWithOneLineOnStandardErrorAndExitStatusOne() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(3)
            let path = store.notePath("n1", in: context)
            try Data("{\"entity\":".utf8).write(to: URL(fileURLWithPath: path))
            let run = dao("dump", store.path, "Note")
            #expect(run.status == 1)
            #expect(
                run.errorLines == [
                    "dao dump: skipped \(path): truncated: the JSON ends at byte 10 in the middle of a value"
                ])
            #expect(try foundationJSON(run.output).keys.sorted() == ["n0", "n2"])
        }
    }

    @Test func dumpOfADamagedRecordByKeyExitsOne() throws {
        try CLIStore.with { store in
            let context = try store.withNotes(2)
            try Data().write(to: URL(fileURLWithPath: store.notePath("n0", in: context)))
            let run = dao("dump", store.path, "Note", "n0")
            #expect(run.status == 1)
            #expect(run.errorLines.count == 1)
            #expect(run.errors.contains("empty file"))
            #expect(run.output == "{}\n")
        }
    }

    @Test func dumpSaysWhenAnUnfinishedBatchTouchesTheEntity() throws {
        try CLIStore.with { store in
            try store.withNotes(2)
            try store.writeUnfinishedJournal(entityDirectory: "^note", entries: [("n1.json", nil)])
            let run = dao("dump", store.path, "Note")
            #expect(run.status == 1)
            #expect(
                run.errorLines == [
                    "dao dump: \(store.path)/.journal holds an unfinished batch; the next open of the store restores 1 Note record to their earlier contents"
                ])
            #expect(try foundationJSON(run.output).count == 2)
        }
    }

    @Test func dumpOfAnUnknownEntityIsAUsageErrorListingTheEntities() throws {
        try CLIStore.with { store in
            try store.withNotes(1)
            try store.context().save([CLIReading(id: 1, value: 0, count: 0, taken: Date(), raw: Data(), isValid: true)])
            dao("dump", store.path, "Message").expectUsageError(
                startingWith: "dao dump: no entity named 'Message' in \(store.path); its entities are Note, Reading")
        }
    }

    @Test func dumpOfAnUnknownKeyIsAUsageError() throws {
        try CLIStore.with { store in
            try store.withNotes(1)
            dao("dump", store.path, "Note", "n5").expectUsageError(
                startingWith: "dao dump: no Note record with key \"n5\" in \(store.path)")
        }
    }

    @Test func dumpOfAMissingDirectoryIsAUsageError() {
        dao("dump", "/nonexistent/daokit-store", "Note").expectUsageError(
            startingWith: "dao dump: no such directory: /nonexistent/daokit-store")
    }

    @Test func dumpOfAStoreWithNoEntitiesSaysSo() throws {
        try CLIStore.with { store in
            _ = try store.context()
            dao("dump", store.path, "Note").expectUsageError(
                startingWith: "dao dump: no entity named 'Note' in \(store.path); it has none yet")
        }
    }
}
