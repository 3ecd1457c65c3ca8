import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// A pushed-down query maps no record that does not match to `Domain`, on every shipped context,
/// even without an index (the context scans entities): counted by the domain's `init(from:)`,
/// which BaseDao's mapper calls once per value it maps.
@Suite("Scanned queries map only what matches", .serialized)
struct ScannedQueryMappingTests {
    struct Note: Codable, Identifiable, Equatable {
        static let decodes = DecodeCounter()
        var id: Int
        var group: Int
        var date: Date
        var text: String

        var textLength: Int { text.count }
    }

    /// No indexes: every query is a scan of entities.
    struct NoteEntity: Storable {
        var id: Int
        var group: Int
        var date: Date
        var text: String
    }

    static let groups = 10
    static let perGroup = 6

    /// A DAO over a fresh context of `factory`'s kind holding the notes, and the clean-up.
    func storedNotes(_ factory: ContextFactory) throws -> (BaseDao<Note, NoteEntity>, () -> Void) {
        let fresh = try factory.make()
        let dao = BaseDao<Note, NoteEntity>(context: fresh.context)
        try dao.persist(
            (0..<Self.groups * Self.perGroup).map { index in
                Note(
                    id: index, group: index % Self.groups, date: Date(timeIntervalSince1970: Double(index)),
                    text: String(repeating: "x", count: index % 7))
            })
        return (dao, fresh.cleanUp)
    }

    /// Runs `query` once to prove its key paths, then again counting domain decodes.
    func mappings<T>(of query: () throws -> T) throws -> (result: T, decodes: Int) {
        _ = try query()
        return try Note.decodes.decodes(during: query)
    }

    @Test(arguments: ContextFactory.everyShipped)
    func theCounterSeesEveryValueAFullReadMaps(_ factory: ContextFactory) throws {
        let (dao, cleanUp) = try storedNotes(factory)
        defer { cleanUp() }
        let (all, decodes) = try mappings { try dao.read() }
        #expect(decodes == all.count)
    }

    @Test(arguments: ContextFactory.everyShipped)
    func aPushedFilterMapsOnlyTheValuesThatMatch(_ factory: ContextFactory) throws {
        let (dao, cleanUp) = try storedNotes(factory)
        defer { cleanUp() }
        let (found, decodes) = try mappings { try dao.read(where: #Predicate { $0.group == 3 }) }
        #expect(found.count == Self.perGroup)
        #expect(decodes == found.count)
    }

    @Test(arguments: ContextFactory.everyShipped)
    func aPushedPageMapsOnlyThePage(_ factory: ContextFactory) throws {
        let (dao, cleanUp) = try storedNotes(factory)
        defer { cleanUp() }
        let (page, decodes) = try mappings {
            try dao.read(
                where: #Predicate { $0.group == 3 }, sortedBy: [SortDescriptor(\.date, order: .reverse)], limit: 2,
                offset: 1)
        }
        #expect(page.map(\.id) == [43, 33])
        #expect(decodes == page.count)
    }

    @Test(arguments: ContextFactory.everyShipped)
    func anExactCountMapsNothing(_ factory: ContextFactory) throws {
        let (dao, cleanUp) = try storedNotes(factory)
        defer { cleanUp() }
        let (count, decodes) = try mappings { try dao.count(where: #Predicate { $0.group == 3 || $0.group == 4 }) }
        #expect(count == 2 * Self.perGroup)
        #expect(decodes == 0)
    }

    @Test(arguments: ContextFactory.everyShipped)
    func anExactEraseMapsNothing(_ factory: ContextFactory) throws {
        let (dao, cleanUp) = try storedNotes(factory)
        defer { cleanUp() }
        _ = try dao.count(where: #Predicate { $0.group == 3 })  // proves the key path
        let (_, decodes) = try Note.decodes.decodes { try dao.erase(where: #Predicate { $0.group == 3 }) }
        #expect(decodes == 0)
        #expect(try dao.count() == (Self.groups - 1) * Self.perGroup)
    }

    @Test(arguments: ContextFactory.everyShipped)
    func aPartlyPushedFilterMapsOnlyWhatThePushedPartSelects(_ factory: ContextFactory) throws {
        let (dao, cleanUp) = try storedNotes(factory)
        defer { cleanUp() }
        // `textLength` is computed: evaluated on mapped values, but only on the group's.
        let (found, decodes) = try mappings { try dao.read(where: #Predicate { $0.group == 3 && $0.textLength > 2 }) }
        #expect(found.map(\.id).sorted() == [3, 13, 33, 53])
        #expect(decodes == Self.perGroup)
    }
}

extension ScannedQueryMappingTests.Note {
    /// The synthesized decoding, counted.
    init(from decoder: any Decoder) throws {
        Self.decodes.increment()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(Int.self, forKey: .id), group: try container.decode(Int.self, forKey: .group),
            date: try container.decode(Date.self, forKey: .date), text: try container.decode(String.self, forKey: .text)
        )
    }
}
