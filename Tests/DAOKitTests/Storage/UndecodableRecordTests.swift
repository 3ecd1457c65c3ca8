import DAOKit
import DAOKitFileStore
import DAOKitTestSupport
import Foundation
import Testing

/// A record that parses but does not decode as the entity (issue 15, bugs 4 and 5): in every
/// context and from every call it is `.decodingFailed`, naming the record, with the underlying
/// error — never "corrupt record (truncated or not valid JSON)" — and a whole-list error about
/// several records lists each on its own short line.
@Suite("Undecodable records")
struct UndecodableRecordTests {
    static let factories: [ContextFactory] = ContextFactory.core + [.fileJSON, .filePropertyList]

    /// 5,000,000,000 stored through an `Int64` field, read back through an `Int32` one.
    @Test(arguments: factories)
    func aNumberThatDoesNotFitTheFieldIsADecodingFailureNamingTheRecordAndTheNumber(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        try context.save([WideMeasure(id: "big", value: 5_000_000_000), WideMeasure(id: "small", value: 5)])

        let error = try #require(throws: StorageError.self) { try context.fetch(NarrowMeasure.self, id: "big") }
        #expect(error.kind == .decodingFailed, "\(factory): \(error)")
        #expect(error.entityName == "Measure")
        #expect(error.key == "big")
        if factory.description != "memory" {
            #expect(error.location?.contains("big") == true, "\(factory): \(error)")
        }
        let underlying = try #require(error.underlyingError, "\(factory)")
        #expect(String(describing: underlying).contains("5000000000"), "\(factory): \(underlying)")
        #expect(!error.description.contains("not valid JSON"), "\(factory): \(error)")
        #expect(try context.fetch(NarrowMeasure.self, id: "small") == NarrowMeasure(id: "small", value: 5))
    }

    /// `read()`, `read(where:)`, `erase(where:)` and `read(id:)` through a DAO all throw the same
    /// kind for the same bad record, and name it.
    @Test(arguments: factories)
    func oneBadRecordGivesTheSameErrorKindFromEveryCall(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        try fresh.context.save([WideMeasure(id: "big", value: 5_000_000_000), WideMeasure(id: "small", value: 5)])
        let dao = BaseDao<Measure, NarrowMeasure>(context: fresh.context)
        let calls: [(String, () throws -> Void)] = [
            ("read(id:)", { _ = try dao.read(id: "big") }),
            ("read()", { _ = try dao.read() }),
            ("read(where:)", { _ = try dao.read(where: #Predicate<Measure> { $0.value > 0 }) }),
            ("count(where:)", { _ = try dao.count(where: #Predicate<Measure> { $0.value > 0 }) }),
            ("erase(where:)", { try dao.erase(where: #Predicate<Measure> { $0.value > 0 }) }),
        ]
        for (name, call) in calls {
            let error = try #require(throws: StorageError.self, "\(factory) \(name)") { try call() }
            #expect(error.kind == .decodingFailed, "\(factory) \(name): \(error)")
            #expect(error.key == "big", "\(factory) \(name): \(error)")
            #expect(error.underlyingError != nil, "\(factory) \(name)")
        }
        #expect(try dao.count() == 2, "erase(where:) deleted something")
    }

    /// Several bad records: one error of their kind, listing each record on its own short line,
    /// with each record's own error (the one `read(id:)` gives) in `RecordFailures`.
    @Test(arguments: factories)
    func severalBadRecordsAreListedOneShortLineEach(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let context = fresh.context
        let bad = (0..<20).map { WideMeasure(id: "b\($0 < 10 ? "0" : "")\($0)", value: 5_000_000_000 + Int64($0)) }
        try context.save(bad + [WideMeasure(id: "fine", value: 1)])

        let error = try #require(throws: StorageError.self) { try context.fetchAll(NarrowMeasure.self) }
        #expect(error.kind == .decodingFailed, "\(factory): \(error)")
        #expect(error.entityName == "Measure")
        let failures = try #require(error.underlyingError as? RecordFailures, "\(factory): \(error)").failures
        #expect(failures.map(\.key) == bad.map(\.id))
        for failure in failures {
            let alone = try #require(throws: StorageError.self) {
                try context.fetch(NarrowMeasure.self, id: failure.key ?? "")
            }
            #expect(
                alone.kind == failure.kind && alone.location == failure.location, "\(factory): \(alone) vs \(failure)")
        }
        let lines = error.description.split(separator: "\n")
        #expect(lines.count == 21, "\(factory): \(error)")
        #expect(
            lines.first?.hasPrefix("Measure: 20 records cannot be read") == true, "\(factory): \(lines.first ?? "")")
        for (line, record) in zip(lines.dropFirst(), bad) {
            #expect(line.hasPrefix("  \"\(record.id)\""), "\(factory): \(line)")
            #expect(line.contains("\(record.value)"), "\(factory): \(line)")
            #expect(line.count <= 300, "\(factory): a line of \(line.count) characters")
        }
    }

    /// A record of a sound JSON file store whose envelope is fine but whose entity does not decode
    /// is still told apart from a damaged file: a truncated one stays a corrupt record.
    @Test func aTruncatedFileIsStillACorruptRecord() throws {
        let fresh = try ContextFactory.fileJSON.make()
        defer { fresh.cleanUp() }
        let context = try #require(fresh.context as? FileStorageContext)
        try context.save([WideMeasure(id: "big", value: 5_000_000_000)])
        let url = context.fileURL(for: NarrowMeasure.self, id: "big")
        let bytes = try Data(contentsOf: url)
        try bytes.prefix(bytes.count - 5).write(to: url)
        let error = try #require(throws: StorageError.self) { try context.fetch(NarrowMeasure.self, id: "big") }
        #expect(error.kind == .corruptRecord("truncated or not valid JSON"))
    }
}

/// The domain value of the measures, with the narrow field.
struct Measure: Codable, Identifiable, Equatable {
    var id: String
    var value: Int32
}

/// How the measures were written: an `Int64` value.
struct WideMeasure: Storable {
    static var entityName: String { "Measure" }
    var id: String
    var value: Int64
}

/// How they are read now: an `Int32` value, too narrow for some of them.
struct NarrowMeasure: Storable, Equatable {
    static var entityName: String { "Measure" }
    var id: String
    var value: Int32
}
