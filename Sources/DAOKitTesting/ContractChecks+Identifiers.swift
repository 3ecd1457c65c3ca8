import DAOKit
import Foundation

/// Ids that are hard to turn into names, ids of every shipped key type, and entity types sharing ids.
extension ContractChecks {
    /// Ids that break naive file names and store keys.
    static let awkwardIDList: [String] = [
        "/", "a/b", "../escape", "..", ".", "", " ", "%2F", "%", "a%b", "\\", "\0", "nul\0inside", "tab\tand\nnewline",
        "ümlaut", "日本語", "👩‍👩‍👧", "\u{E9}", "CON", "x:y*z?\"<>|",
        String(repeating: "long", count: 125), "Case", "case", "CASE",
    ]

    static let identifiers: [ContractCheck] = [
        ContractCheck("awkwardStringIDsReadBackAndList") { context in
            let notes = awkwardIDList.enumerated().map { FixtureNoteEntity(id: $0.element, body: "note \($0.offset)") }
            try context.save(notes)
            for note in notes {
                try Expect.equal(
                    try context.fetch(FixtureNoteEntity.self, id: note.id), note,
                    "fetch(\(note.id.debugDescription))")
            }
            let listed = try context.fetchAll(FixtureNoteEntity.self)
            try Expect.equal(listed.count, notes.count, "fetchAll count")
            try Expect.equal(Set(listed.map(\.id)), Set(awkwardIDList), "ids recovered by fetchAll")
            try Expect.equal(try context.count(FixtureNoteEntity.self), notes.count, "count")
            try context.delete(
                FixtureNoteEntity.self, ids: awkwardIDList.filter { $0.hasPrefix(".") || $0.contains("/") })
            try Expect.equal(
                Set(try context.fetchAll(FixtureNoteEntity.self).map(\.id)),
                Set(awkwardIDList.filter { !($0.hasPrefix(".") || $0.contains("/")) }), "ids left after delete")
        },
        ContractCheck("idsDifferingOnlyInCaseStayApart") { context in
            let ids = ["Case", "case", "CASE", "straße", "STRASSE", "strasse", "İ", "i̇", "i"]
            try context.save(ids.map { FixtureNoteEntity(id: $0, body: "body of \($0)") })
            try Expect.equal(try context.count(FixtureNoteEntity.self), ids.count, "count")
            for id in ids {
                try Expect.equal(
                    try context.fetch(FixtureNoteEntity.self, id: id)?.body, "body of \(id)",
                    "body of \(id.debugDescription)")
            }
        },
        ContractCheck("canonicallyEquivalentIDsAreOneID") { context in
            // Swift compares strings by canonical equivalence, so these are one id and one record.
            let decomposed = "caf\u{65}\u{301}"
            let precomposed = "caf\u{E9}"
            try Expect.that(decomposed == precomposed, "the two spellings are == in Swift")
            try context.save([FixtureNoteEntity(id: decomposed, body: "first")])
            try context.save([FixtureNoteEntity(id: precomposed, body: "second")])
            try Expect.equal(try context.count(FixtureNoteEntity.self), 1, "count")
            try Expect.equal(
                try context.fetch(FixtureNoteEntity.self, id: decomposed)?.body, "second",
                "body read with the decomposed spelling")
            try Expect.equal(
                try context.fetch(FixtureNoteEntity.self, id: precomposed)?.body, "second",
                "body read with the precomposed spelling")
            try context.delete(FixtureNoteEntity.self, ids: [decomposed])
            try Expect.equal(
                try context.fetchAll(FixtureNoteEntity.self), [], "entities after deleting either spelling")
        },
        ContractCheck("equalIDsOfTwoEntityTypesStayApart") { context in
            try context.save([FixtureNoteEntity(id: "shared", body: "a note")])
            try context.save([FixtureTagEntity(id: "shared", label: "a tag")])
            try Expect.equal(try context.fetch(FixtureNoteEntity.self, id: "shared")?.body, "a note", "the note")
            try Expect.equal(try context.fetch(FixtureTagEntity.self, id: "shared")?.label, "a tag", "the tag")
            try context.delete(FixtureTagEntity.self, ids: ["shared"])
            try Expect.equal(
                try context.fetch(FixtureNoteEntity.self, id: "shared")?.body, "a note",
                "the note after deleting the tag")
            try Expect.equal(try context.count(FixtureTagEntity.self), 0, "tags left")
        },
        ContractCheck("uuidIDsRoundTrip") { context in
            let ids = [UUID(), UUID(), UUID(uuidString: "00000000-0000-0000-0000-000000000000")!]
            let entities = ids.map {
                FixtureMessageEntity(
                    id: $0, dialogID: "d", author: "a", text: "\($0)",
                    date: Date(timeIntervalSinceReferenceDate: 1.5),
                    isRead: true, priority: -1)
            }
            try context.save(entities)
            for entity in entities {
                try Expect.equal(
                    try context.fetch(FixtureMessageEntity.self, id: entity.id), entity, "fetch(\(entity.id))")
            }
            try Expect.equal(Set(try context.fetchAll(FixtureMessageEntity.self).map(\.id)), Set(ids), "fetchAll ids")
        },
        ContractCheck("intIDsRoundTripIncludingNegativeAndExtremeValues") { context in
            let ids = [0, 1, -1, 42, Int.max, Int.min]
            try context.save(ids.map { FixtureCounterEntity(id: $0, value: $0 / 2) })
            for id in ids {
                try Expect.equal(try context.fetch(FixtureCounterEntity.self, id: id)?.value, id / 2, "fetch(\(id))")
            }
            try Expect.equal(Set(try context.fetchAll(FixtureCounterEntity.self).map(\.id)), Set(ids), "fetchAll ids")
            try context.delete(FixtureCounterEntity.self, ids: [Int.min, -1])
            try Expect.equal(
                Set(try context.fetchAll(FixtureCounterEntity.self).map(\.id)), [0, 1, 42, Int.max],
                "ids left after deleting the negative ones")
        },
    ]
}
