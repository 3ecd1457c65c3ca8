import DAOKit
import DAOKitTesting
import Foundation
import Testing

/// Versions of one stored entity, `tasks`, as successive releases of an app declare it.
enum Tasks {
    enum Status: String, Codable, CaseIterable { case open, done }
    enum StatusWithArchived: String, Codable, CaseIterable { case open, done, archived }
    enum StatusOpenOnly: String, Codable, CaseIterable { case open }

    /// The first release.
    struct V1: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var note: String
        var count: Int
        var status: Status
        var due: Date?
    }

    /// A non-optional field with a default value: synthesized decoding ignores the default.
    struct AddedWithDefaultValue: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var note: String
        var count: Int
        var status: Status
        var due: Date?
        var points = 0
    }

    /// The same, with the default and a rename declared in the entity's schema.
    struct AddedAndRenamedByDeclaration: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var remark: String
        var count: Int
        var status: Status
        var due: Date?
        var points = 0
        static let schema = EntitySchema(
            version: 2, steps: [2: [.added("points", default: 0), .renamed("note", to: "remark")]])
    }

    struct AddedOptional: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var note: String
        var count: Int
        var status: Status
        var due: Date?
        var points: Int?
    }

    /// The default given where it works: `decodeIfPresent ?? 0`.
    struct AddedWithDecodedDefault: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var note: String
        var count: Int
        var status: Status
        var due: Date?
        var points: Int

        enum CodingKeys: String, CodingKey { case id, title, note, count, status, due, points }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            note = try container.decode(String.self, forKey: .note)
            count = try container.decode(Int.self, forKey: .count)
            status = try container.decode(Status.self, forKey: .status)
            due = try container.decodeIfPresent(Date.self, forKey: .due)
            points = try container.decodeIfPresent(Int.self, forKey: .points) ?? 0
        }
    }

    struct Renamed: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var remark: String
        var count: Int
        var status: Status
        var due: Date?
    }

    struct CountAsText: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var note: String
        var count: String
        var status: Status
        var due: Date?
    }

    /// The same change, made by a migration step.
    struct CountAsTextByStep: Storable {
        static var entityName: String { "tasks" }
        static let schema = EntitySchema(
            version: 2,
            steps: [
                2: [
                    .migrated { record in
                        try record.encode(String(try record.decode(Int.self, forField: "count")), forField: "count")
                    }
                ]
            ])
        var id: String
        var title: String
        var note: String
        var count: String
        var status: Status
        var due: Date?
    }

    struct NoteRemoved: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var count: Int
        var status: Status
        var due: Date?
    }

    struct GainedCase: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var note: String
        var count: Int
        var status: StatusWithArchived
        var due: Date?
    }

    struct LostCase: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var note: String
        var count: Int
        var status: StatusOpenOnly
        var due: Date?
    }

    struct DueRequired: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var note: String
        var count: Int
        var status: Status
        var due: Date
    }

    struct NoteOptional: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var note: String?
        var count: Int
        var status: Status
        var due: Date?
    }

    struct CountAsDouble: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var note: String
        var count: Double
        var status: Status
        var due: Date?
    }

    /// Validates what its shape does not show: a due date, if any, must come with a note text
    /// other than the empty one. Recording passes (every optional is given); a version-1 record
    /// without a due date does not.
    struct DueRequiredUnlessNoted: Storable {
        static var entityName: String { "tasks" }
        var id: String
        var title: String
        var note: String
        var count: Int
        var status: Status
        var due: Date?

        enum CodingKeys: String, CodingKey { case id, title, note, count, status, due }
        struct NoDueDate: Error {}

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            title = try container.decode(String.self, forKey: .title)
            note = try container.decode(String.self, forKey: .note)
            count = try container.decode(Int.self, forKey: .count)
            status = try container.decode(Status.self, forKey: .status)
            due = try container.decodeIfPresent(Date.self, forKey: .due)
            guard due != nil else { throw NoDueDate() }
        }
    }

    struct Owner: Codable { var name: String }
    struct OwnerWithAge: Codable {
        var name: String
        var age: Int
    }

    struct WithOwner: Storable {
        static var entityName: String { "owned" }
        var id: String
        var owners: [Owner]
    }

    struct WithOwnerAge: Storable {
        static var entityName: String { "owned" }
        var id: String
        var owners: [OwnerWithAge]
    }
}

@Suite("A breaking change to an entity fails its shape check, naming the field and the fix")
struct EntityShapeCheckTests {
    /// Records `Old` as version 1, then checks `New` as version 2 (writing its snapshot first, so
    /// that only the change is left to fail). Returns the problems, none when it passes.
    private func problems<Old: Storable, New: Storable>(
        from old: Old.Type, to new: New.Type, rollback: EntityShapeRollback = .previousVersion
    ) throws -> [EntityShapeProblem] {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        try EntityShapeCheck(Old.self, version: 1, snapshots: folder.url).record()
        let check = EntityShapeCheck(New.self, version: 2, snapshots: folder.url, rollback: rollback)
        try check.record()
        do {
            try check.verify()
            return []
        } catch let failure as EntityShapeCheckFailure {
            #expect(failure.entityName == New.entityName)
            #expect(
                failure.description.hasPrefix(
                    "\(New.entityName) version 2: \(failure.problems.count) stored-shape problem"))
            return failure.problems
        }
    }

    // MARK: The five changes of a second release

    @Test func changesDeclaredInTheEntitysSchemaReadOlderRecords() throws {
        // Reading version 1 records passes; only the rollback direction (version 1 reading what
        // version 2 writes, without `note`) is left to fail.
        #expect(
            try problems(from: Tasks.V1.self, to: Tasks.AddedAndRenamedByDeclaration.self, rollback: .notChecked)
                .isEmpty)
        let rollback = try problems(from: Tasks.V1.self, to: Tasks.AddedAndRenamedByDeclaration.self)
        #expect(rollback.map(\.field) == ["remark"])
        #expect(rollback.first?.message.contains("`note`") == true, "\(rollback)")
    }

    @Test func aNonOptionalFieldAddedWithADefaultValueFails() throws {
        let problems = try problems(from: Tasks.V1.self, to: Tasks.AddedWithDefaultValue.self)
        #expect(problems.map(\.kind) == [.addedWithoutDefault])
        #expect(problems.first?.field == "points")
        #expect(problems.first?.olderVersion == 1)
        #expect(
            problems.first?.message.hasPrefix("`points` was added without a default: declare one or make it optional")
                == true)
    }

    @Test func aRenameFails() throws {
        let problems = try problems(from: Tasks.V1.self, to: Tasks.Renamed.self, rollback: .notChecked)
        #expect(problems.map(\.kind) == [.renamed])
        #expect(problems.first?.field == "remark")
        #expect(
            problems.first?.message
                == "`note` disappeared while `remark` of the same kind appeared: declare the rename or a migration step"
        )
    }

    @Test func anIntegerThatBecameTextFails() throws {
        let problems = try problems(from: Tasks.V1.self, to: Tasks.CountAsText.self, rollback: .notChecked)
        #expect(problems.map(\.kind) == [.kindChanged])
        #expect(problems.first?.field == "count")
        #expect(problems.first?.message == "`count` changed from integer to string: add a migration step")
    }

    @Test func anIntegerThatBecameTextByAMigrationStepPasses() throws {
        let found = try problems(from: Tasks.V1.self, to: Tasks.CountAsTextByStep.self, rollback: .notChecked)
        #expect(found.isEmpty, "\(found)")
    }

    @Test func aRemovedRequiredFieldFailsBecauseThePreviousVersionCannotReadWhatThisOneWrites() throws {
        let problems = try problems(from: Tasks.V1.self, to: Tasks.NoteRemoved.self)
        #expect(problems.map(\.kind) == [.removedButStillRequired])
        #expect(problems.first?.field == "note")
        #expect(
            problems.first?.message.hasPrefix(
                "`note` was removed, but version 1 (a rollback, or an older app on the same store) requires it") == true
        )
    }

    @Test func anEnumThatGainedACaseFailsBecauseThePreviousVersionCannotReadIt() throws {
        let problems = try problems(from: Tasks.V1.self, to: Tasks.GainedCase.self)
        #expect(problems.map(\.kind) == [.gainedEnumCases])
        #expect(problems.first?.field == "status")
        #expect(problems.first?.message.hasPrefix("`status` gained the case `archived`: version 1") == true)
    }

    // MARK: Compatible changes pass

    @Test func anOptionalFieldAddedPasses() throws {
        #expect(try problems(from: Tasks.V1.self, to: Tasks.AddedOptional.self).isEmpty)
    }

    @Test func aFieldAddedWithDecodeIfPresentAndADefaultPasses() throws {
        #expect(try problems(from: Tasks.V1.self, to: Tasks.AddedWithDecodedDefault.self).isEmpty)
    }

    @Test func anEnumThatGainedACaseReadsEveryOlderRecord() throws {
        #expect(try problems(from: Tasks.V1.self, to: Tasks.GainedCase.self, rollback: .notChecked).isEmpty)
    }

    @Test func aRemovedFieldIsSkippedWhenReadingOlderRecords() throws {
        #expect(try problems(from: Tasks.V1.self, to: Tasks.NoteRemoved.self, rollback: .notChecked).isEmpty)
    }

    @Test func anIntegerWidenedToAFloatingPointNumberReadsEveryOlderRecord() throws {
        #expect(try problems(from: Tasks.V1.self, to: Tasks.CountAsDouble.self, rollback: .notChecked).isEmpty)
    }

    @Test func aFieldThatBecameOptionalReadsEveryOlderRecord() throws {
        #expect(try problems(from: Tasks.V1.self, to: Tasks.NoteOptional.self, rollback: .notChecked).isEmpty)
    }

    @Test func anUnchangedShapeAtItsRecordedVersionPasses() throws {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        try EntityShapeCheck(Tasks.V1.self, version: 1, snapshots: folder.url).record()
        try EntityShapeCheck(Tasks.V1.self, version: 1, snapshots: folder.url).verify()
    }

    // MARK: More breaking changes

    @Test func anEnumThatLostACaseFails() throws {
        let problems = try problems(from: Tasks.V1.self, to: Tasks.LostCase.self, rollback: .notChecked)
        #expect(problems.map(\.kind) == [.lostEnumCases])
        #expect(problems.first?.field == "status")
        #expect(
            problems.first?.message.hasPrefix(
                "`status` lost the case `done`: records of version 1 holding it cannot be read") == true)
    }

    @Test func anOptionalFieldThatBecameRequiredFails() throws {
        let problems = try problems(from: Tasks.V1.self, to: Tasks.DueRequired.self)
        #expect(problems.map(\.kind) == [.becameRequired])
        #expect(problems.first?.field == "due")
    }

    @Test func aRequiredFieldThatBecameOptionalFailsForThePreviousVersion() throws {
        let problems = try problems(from: Tasks.V1.self, to: Tasks.NoteOptional.self)
        #expect(problems.map(\.kind) == [.becameOptional])
        #expect(problems.first?.field == "note")
    }

    @Test func aWidenedKindFailsForThePreviousVersion() throws {
        let problems = try problems(from: Tasks.V1.self, to: Tasks.CountAsDouble.self)
        #expect(problems.map(\.kind) == [.widened])
        #expect(problems.first?.message.hasPrefix("`count` widened from integer to floating") == true)
    }

    @Test func aRecordTheTypeRejectsForAReasonTheShapeDoesNotShowFailsWithTheDecodingError() throws {
        let problems = try problems(from: Tasks.V1.self, to: Tasks.DueRequiredUnlessNoted.self)
        #expect(problems.map(\.kind) == [.unreadableRecord])
        #expect(problems.first?.field == nil)
        #expect(
            problems.first?.message.hasPrefix(
                "a record of version 1 cannot be read by the current DueRequiredUnlessNoted") == true)
        #expect(problems.first?.message.contains("NoDueDate") == true)
    }

    @Test func aFieldAddedInsideAnArrayOfNestedValuesIsNamedByItsPath() throws {
        let problems = try problems(from: Tasks.WithOwner.self, to: Tasks.WithOwnerAge.self)
        #expect(problems.map(\.kind) == [.addedWithoutDefault])
        #expect(problems.first?.field == "owners[].age")
    }

    @Test func everyRecordedOlderVersionIsRead() throws {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        try EntityShapeCheck(Tasks.V1.self, version: 1, snapshots: folder.url).record()
        try EntityShapeCheck(Tasks.AddedOptional.self, version: 2, snapshots: folder.url).record()
        let check = EntityShapeCheck(Tasks.AddedWithDefaultValue.self, version: 3, snapshots: folder.url)
        try check.record()
        let failure = try #require(throws: EntityShapeCheckFailure.self) { try check.verify() }
        // Version 1 lacks `points`; version 2 may lack it. One problem per field and kind.
        #expect(failure.problems.map(\.kind) == [.addedWithoutDefault, .becameRequired])
        #expect(failure.problems.map(\.olderVersion) == [1, 2])
        #expect(failure.problems.allSatisfy { $0.field == "points" })
    }

    // MARK: Versions and snapshots

    @Test func aMissingSnapshotIsWrittenAndFailsOnceAskingToCommitIt() throws {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        let check = EntityShapeCheck(Tasks.V1.self, version: 1, snapshots: folder.url)
        let failure = try #require(throws: EntityShapeCheckFailure.self) { try check.verify() }
        #expect(failure.problems.map(\.kind) == [.snapshotRecorded])
        #expect(failure.problems.first?.message.contains("commit this file") == true)
        #expect(
            try folder.read("tasks.v1.shape").hasSuffix(
                """
                @version 1
                id: string
                title: string
                note: string
                count: integer
                status: enum(open,done)
                due: date?

                """))
        try check.verify()
    }

    @Test func aShapeChangedWithoutANewVersionFails() throws {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        try EntityShapeCheck(Tasks.V1.self, version: 1, snapshots: folder.url).record()
        let failure = try #require(throws: EntityShapeCheckFailure.self) {
            try EntityShapeCheck(Tasks.AddedOptional.self, version: 1, snapshots: folder.url).verify()
        }
        #expect(failure.problems.map(\.kind) == [.shapeChangedWithoutNewVersion])
        let message = try #require(failure.problems.first?.message)
        #expect(message.hasPrefix("the stored shape of AddedOptional changed but its version did not"))
        #expect(message.contains("`points` added (integer?)"))
        #expect(message.contains("Declare version 2"))
    }

    @Test func aSnapshotOfAHigherVersionThanTheDeclaredOneFails() throws {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        try EntityShapeCheck(Tasks.V1.self, version: 3, snapshots: folder.url).record()
        try EntityShapeCheck(Tasks.V1.self, version: 2, snapshots: folder.url).record()
        let failure = try #require(throws: EntityShapeCheckFailure.self) {
            try EntityShapeCheck(Tasks.V1.self, version: 2, snapshots: folder.url).verify()
        }
        #expect(failure.problems.map(\.kind) == [.newerSnapshot])
        #expect(failure.problems.first?.message.contains("a version never goes down") == true)
    }

    @Test func anEntityWhoseShapeCannotBeRecordedFailsWithTheRecordingError() throws {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        let error = try #require(throws: ShapeRecordingError.self) {
            try EntityShapeCheck(Unrecordable.self, version: 1, snapshots: folder.url).verify()
        }
        #expect(error.field == "status")
        #expect(!FileManager.default.fileExists(atPath: folder.url.path))
    }

    /// Every kind the recorder knows, so that the records synthesized from its snapshot are ones
    /// the JSON contexts' decoding reads: a wrong placeholder for any kind would fail here.
    struct EveryKind: Storable {
        static var entityName: String { "every-kind" }
        enum Priority: Int, Codable, CaseIterable {
            case low = 1
            case high = 5
        }
        struct Line: Codable {
            var sku: String
            var quantity: UInt8
        }
        final class Node: Codable {
            var label: String
            var children: [Node]
            var parent: Node?
        }
        var id: UUID
        var ratio: Float
        var flag: Bool
        var due: Date
        var blob: Data
        var link: URL
        var amount: Decimal
        var labels: Set<String>
        var maybeTags: [String?]
        var byYear: [Int: [Line]]
        var status: Tasks.Status
        var priority: Priority?
        var tree: Node
    }

    @Test func recordsOfEveryKindSynthesizedFromASnapshotReadBackAsTheSameType() throws {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        try EntityShapeCheck(EveryKind.self, version: 1, snapshots: folder.url).record()
        let check = EntityShapeCheck(EveryKind.self, version: 2, snapshots: folder.url)
        try check.record()
        try check.verify()
    }

    @Test func aSnapshotFolderThatIsAFileFailsWithTheFolder() throws {
        let folder = SnapshotFolder()
        defer { folder.remove() }
        try folder.write("not a folder", named: "file")
        let file = folder.url.appendingPathComponent("file")
        let error = try #require(throws: ShapeSnapshotError.self) {
            try EntityShapeCheck(Tasks.V1.self, version: 1, snapshots: file).verify()
        }
        #expect(error.file == file.path)
        #expect(error.reason.contains("cannot be listed"))
    }

    enum LooseStatus: String, Codable { case open }
    struct Unrecordable: Storable {
        var id: String
        var status: LooseStatus
    }
}
