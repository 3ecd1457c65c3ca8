import DAOKit
import DAOKitFileStore
import DAOKitTestSupport
import Foundation
import Testing

/// The contexts that keep entity versions.
private let versionedContexts: [ContextFactory] = [
    .keyValueInMemory, .keyValueUserDefaults, .fileJSON, .filePropertyList, .sqliteFile,
]

/// The first release of an estimate: hours as an integer, the owner's whole name in one field.
private struct EstimateV1: Storable, Equatable {
    static var entityName: String { "Estimate" }
    var id: String
    var title: String
    var hours: Int
    var owner: String
    var price: Decimal
    var due: Date
    var attachment: Data
    var ratio: Double
    var isUrgent: Bool
}

/// The steps of the second and third releases, shared by both.
private let estimateSteps: [Int: [EntityChange]] = [
    2: [
        .migrated { record in
            // Hours become text; the owner's name splits in two; a negative estimate is refused.
            let hours = try record.decode(Int.self, forField: "hours")
            if hours < 0 { throw record.failure("a negative estimate (\(hours) hours)") }
            try record.encode("\(hours)h", forField: "estimate")
            record.removeField("hours")
            let owner = try record.decode(String.self, forField: "owner").split(separator: " ", maxSplits: 1)
            try record.encode(owner.first.map(String.init) ?? "", forField: "firstName")
            try record.encode(owner.count > 1 ? String(owner[1]) : nil as String?, forField: "lastName")
            record.removeField("owner")
            try record.encode("\(record.version) → \(record.key)", forField: "trail")
        }
    ],
    3: [.added("points", default: 5), .renamed("title", to: "name")],
]

/// The second release.
private struct EstimateV2: Storable, Equatable {
    static var entityName: String { "Estimate" }
    static let schema = EntitySchema(version: 2, steps: estimateSteps.filter { $0.key <= 2 })
    var id: String
    var title: String
    var estimate: String
    var firstName: String
    var lastName: String?
    var price: Decimal
    var due: Date
    var attachment: Data
    var ratio: Double
    var isUrgent: Bool
    var trail: String
}

/// The third release: lightweight changes after the migration step.
private struct EstimateV3: Storable, Equatable {
    static var entityName: String { "Estimate" }
    static let schema = EntitySchema(version: 3, steps: estimateSteps)
    var id: String
    var name: String
    var estimate: String
    var firstName: String
    var lastName: String?
    var price: Decimal
    var due: Date
    var attachment: Data
    var ratio: Double
    var isUrgent: Bool
    var trail: String
    var points: Int
}

private let price = Decimal(string: "12345678901234567890.123456789012345678")!
private let due = Date(timeIntervalSinceReferenceDate: 812_345_678.123_456)

private func estimateV1(_ id: String, hours: Int = 3, owner: String = "Ada Lovelace") -> EstimateV1 {
    EstimateV1(
        id: id, title: "T-\(id)", hours: hours, owner: owner, price: price, due: due,
        attachment: Data([0, 1, 254, 255]), ratio: 0.1, isUrgent: hours == 1)
}

@Suite("A migration step rewrites older records field by field, on read and by migrate()")
struct MigrationStepTests {
    @Test(arguments: versionedContexts)
    func versionOneRecordsReadThroughTheStepAndTheLaterChanges(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([estimateV1("a"), estimateV1("b", hours: 1, owner: "Plato")])
        let a = try #require(try fresh.context.fetch(EstimateV3.self, id: "a"))
        #expect(
            a
                == EstimateV3(
                    id: "a", name: "T-a", estimate: "3h", firstName: "Ada", lastName: "Lovelace", price: price,
                    due: due,
                    attachment: Data([0, 1, 254, 255]), ratio: 0.1, isUrgent: false, trail: "1 → a", points: 5))
        let b = try #require(try fresh.context.fetch(EstimateV3.self, id: "b"))
        #expect(b.firstName == "Plato" && b.lastName == nil && b.estimate == "1h" && b.isUrgent)
        // Version 2 reads them through the step alone.
        #expect(try fresh.context.fetch(EstimateV2.self, id: "a")?.title == "T-a")
        // A version 2 record takes only the lightweight step 3.
        try fresh.context.save([
            EstimateV2(
                id: "c", title: "C", estimate: "8h", firstName: "Kim", lastName: nil, price: 1, due: due,
                attachment: Data(), ratio: 2.5, isUrgent: false, trail: "written by 2")
        ])
        #expect(try fresh.context.fetch(EstimateV3.self, id: "c")?.trail == "written by 2")
        #expect(try fresh.context.fetchAll(EstimateV3.self).map(\.id).sorted() == ["a", "b", "c"])
    }

    @Test(arguments: versionedContexts)
    func aRecordTheStepFailsIsUnreadableAndTheOthersRead(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([estimateV1("good"), estimateV1("bad", hours: -2)])
        let readable = try fresh.context.fetchReadable(EstimateV3.self)
        #expect(readable.values.map(\.id) == ["good"])
        let failure = try #require(readable.failures.first)
        #expect(failure.storageKey == "bad")
        #expect(failure.error.code == .decodingFailed)
        #expect(
            "\(failure.error)".contains(
                "version 2's migration step failed for Estimate \"bad\": a negative estimate (-2 hours)"),
            "\(failure.error)")
        // migrate() writes nothing and names it.
        let error = try #require(throws: StorageError.self) {
            try BaseDao<EstimateV3, EstimateV3>(context: fresh.context).migrate()
        }
        #expect(error.key == "bad", "\(error)")
        #expect(try fresh.context.fetch(EstimateV1.self, id: "good") == estimateV1("good"))
    }

    @Test(arguments: versionedContexts)
    func aFieldTheStepCannotReadFailsNamingIt(_ factory: ContextFactory) throws {
        struct Untimed: Storable {
            static var entityName: String { "Estimate" }
            var id: String
            var title: String
            var hours: String
        }
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([Untimed(id: "x", title: "X", hours: "three")])
        let error = try #require(throws: StorageError.self) { try fresh.context.fetch(EstimateV3.self, id: "x") }
        #expect(error.code == .decodingFailed)
        #expect("\(error)".contains("`hours` does not read as Int"), "\(error)")
    }

    @Test(arguments: versionedContexts)
    func migrateRewritesThroughTheStep(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save((0..<30).map { estimateV1("e\($0)", hours: $0) })
        let dao = BaseDao<EstimateV3, EstimateV3>(context: fresh.context)
        let lazily = try dao.read().sorted { $0.id < $1.id }
        #expect(try dao.migrate() == 30)
        #expect(try dao.read().sorted { $0.id < $1.id } == lazily)
        #expect(try dao.read(id: "e7")?.estimate == "7h")
        #expect(try dao.migrate() == 0)
    }

    @Test func aStepThatMigratesDeclaresNothingElse() throws {
        struct Mixed: Storable {
            static var entityName: String { "Estimate" }
            static let schema = EntitySchema(version: 2, steps: [2: [.migrated { _ in }, .removed("hours")]])
            var id: String
        }
        let error = try #require(throws: StorageError.self) {
            try KeyValueStorageContext(store: InMemoryKeyValueStore()).fetch(Mixed.self, id: "a")
        }
        #expect(error.code == .invalidSchema)
        #expect(error.kind.detail?.contains("version 2 has a migration step beside other changes") == true)
    }

    @Test func aStepIsDescribedAsDeclared() {
        #expect("\(EntityChange.migrated { _ in })" == "migrated { … }")
    }
}
