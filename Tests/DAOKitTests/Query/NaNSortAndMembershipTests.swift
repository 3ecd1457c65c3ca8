import DAOKit
import DAOKitTestSupport
import DAOKitTesting
import Foundation
import Testing

/// NaN in a sort key is placed by one rule on every path (after every number ascending, before
/// them descending), so rows left after a Swift filter keep the sort; a membership in a constant
/// range or a long list is answered without expanding it into one comparison per constant.
@Suite("NaN sorts by one rule and memberships are not expanded")
struct NaNSortAndMembershipTests {
    struct Reading: Codable, Identifiable, Equatable, Sendable {
        var id: Int
        var x: Double
        var tag: String
        var a: Int
    }

    struct ReadingEntity: Storable, Equatable, Sendable {
        var id: Int
        var x: Double
        var tag: String
        var a: Int
    }

    typealias ReadingDao = BaseDao<Reading, ReadingEntity>

    static let readings = [
        Reading(id: 1, x: 4, tag: "keep", a: Int.min), Reading(id: 2, x: .nan, tag: "dropped", a: -1),
        Reading(id: 3, x: 2, tag: "keep", a: 0), Reading(id: 4, x: .nan, tag: "keep", a: 7),
        Reading(id: 5, x: -.infinity, tag: "keep", a: Int.max), Reading(id: 6, x: 1, tag: "gone!", a: 3),
    ]

    @Test(arguments: ContextFactory.everyShipped)
    func nanSortsAfterEveryNumberAscendingAndBeforeThemDescending(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let dao = ReadingDao(context: fresh.context)
        try dao.persist(Self.readings)
        // `tag.count` does not translate: the context returns candidates and Swift finishes.
        let partly = #Predicate<Reading> { $0.tag.count == 4 }
        #expect(try dao.read(where: partly, sortedBy: [SortDescriptor(\.x)]).map(\.id) == [5, 3, 1, 4], "\(factory)")
        #expect(
            try dao.read(where: partly, sortedBy: [SortDescriptor(\.x, order: .reverse)]).map(\.id) == [4, 1, 3, 5],
            "\(factory)")
        #expect(
            try dao.read(sortedBy: [SortDescriptor(\.x), SortDescriptor(\.id)]).map(\.id) == [5, 6, 3, 1, 2, 4],
            "\(factory)")
        #expect(
            try dao.read(sortedBy: [SortDescriptor(\.x, order: .reverse), SortDescriptor(\.id)], limit: 3).map(\.id)
                == [2, 4, 1],
            "\(factory)")
    }

    @Test func domainQuerySortsNaNByTheSameRule() throws {
        let query = DomainQuery<Reading>(sortedBy: [SortDescriptor(\.x)])
        #expect(try query.apply(to: Self.readings).map(\.id) == [5, 6, 3, 1, 2, 4])
        let keys = [StorageSortKey("x")]
        #expect(keys[0].compare(.double(.nan), .double(1)) == .orderedDescending)
        #expect(keys[0].compare(.int(1), .double(.nan)) == .orderedAscending)
        #expect(keys[0].compare(.double(.nan), .double(.nan)) == .orderedSame)
        #expect(keys[0].compare(.null, .double(.nan)) == .orderedAscending)
    }

    @Test(arguments: ContextFactory.everyShipped)
    func aRangeMembershipIsTranslatedAsItsBounds(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let dao = ReadingDao(context: fresh.context)
        try dao.persist(Self.readings)
        let everything = Self.readings.filter { $0.a != Int.max }.map(\.id)
        // Built by hand, as Foundation's own tests do: the macro would make a range test instead.
        let whole = Predicate<Reading> { reading in
            PredicateExpressions.SequenceContains(
                sequence: PredicateExpressions.Value(Int.min..<Int.max),
                element: PredicateExpressions.KeyPath(root: reading, keyPath: \Reading.a))
        }
        let closedByHand = Predicate<Reading> { reading in
            PredicateExpressions.SequenceContains(
                sequence: PredicateExpressions.Value(-1...3),
                element: PredicateExpressions.KeyPath(root: reading, keyPath: \Reading.a))
        }
        #expect(try dao.read(where: closedByHand).map(\.id).sorted() == [2, 3, 6], "\(factory)")
        #expect(try dao.read(where: whole).map(\.id).sorted() == everything, "\(factory)")
        #expect(try dao.count(where: whole) == everything.count, "\(factory)")
        let closed = #Predicate<Reading> { (-1...3).contains($0.a) }
        #expect(try dao.read(where: closed).map(\.id).sorted() == [2, 3, 6], "\(factory)")
        let empty = #Predicate<Reading> { (5..<5).contains($0.a) }
        #expect(try dao.count(where: empty) == 0, "\(factory)")
    }

    @Test(arguments: [ContextFactory.sqliteFile, .memory])
    func a100000ConstantMembershipAnswers(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let dao = ReadingDao(context: fresh.context)
        try dao.persist(Self.readings)
        for size in [9, 1_000, 20_000, 100_000] {
            let list = Array(0..<size) + [Int.max]
            let strings = list.map { "k\($0)" } + ["keep"]
            let member = #Predicate<Reading> { list.contains($0.a) }
            let stringMember = #Predicate<Reading> { strings.contains($0.tag) }
            let notMember = #Predicate<Reading> { !list.contains($0.a) }
            #expect(try dao.read(where: member).map(\.id).sorted() == [3, 4, 5, 6], "\(factory) \(size)")
            #expect(try dao.count(where: stringMember) == 4, "\(factory) \(size)")
            #expect(try dao.count(where: notMember) == 2, "\(factory) \(size)")
            // The work, not the clock: each list is handed to the context as one membership of
            // every constant and counted there; SQL binds a long list as one parameter.
            for (predicate, constants) in [
                (member, list.count), (stringMember, strings.count), (notMember, list.count),
            ] {
                let explanation = try dao.explainCount(where: predicate)
                #expect(explanation.countedByContext, "\(factory) \(size)")
                #expect(Self.membershipSizes(explanation.storageQuery.filter) == [constants], "\(factory) \(size)")
                let statement = explanation.access?.statement
                #expect((statement != nil) == factory.description.hasPrefix("sqlite"), "\(factory)")
                // At most the SQLite context's 10,000 parameters one by one; a longer list is one.
                if let statement {
                    let parameters = statement.utf8.count(where: { $0 == UInt8(ascii: "?") })
                    #expect(parameters == (constants <= 10_000 ? constants : 1), "\(factory) \(size)")
                }
            }
        }
    }

    /// The number of constants of each membership in `filter`, in order: one entry per `isIn`.
    static func membershipSizes(_ filter: StorageFilter?) -> [Int] {
        switch filter {
        case nil, .compare, .hasPrefix, .contains: return []
        case .isIn(_, let values): return [values.count]
        case .and(let parts), .or(let parts): return parts.flatMap(membershipSizes)
        case .not(let inner): return membershipSizes(inner)
        }
    }
    @Test(arguments: ContextFactory.everyShipped)
    func aSortDescriptorWhoseOrderWasSetLaterSortsAsFoundationDoesOnEveryPath(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let dao = ReadingDao(context: fresh.context)
        try dao.persist(Self.readings)
        var byA = SortDescriptor(\Reading.a)
        byA.order = .reverse
        var byTag = SortDescriptor(\Reading.tag, comparator: .lexical)
        byTag.order = .reverse
        for descriptors in [[byA], [byTag, byA]] {
            let foundation = Self.readings.sorted(using: descriptors).map(\.id)
            #expect(try dao.read(sortedBy: descriptors).map(\.id) == foundation, "\(factory) translated")
            #expect(
                try dao.read(sortedBy: descriptors, limit: 2, offset: 1).map(\.id)
                    == Array(foundation.dropFirst().prefix(2)),
                "\(factory) translated page")
            let partly = #Predicate<Reading> { $0.tag.count == 4 }
            let kept = Set(Self.readings.filter { $0.tag.count == 4 }.map(\.id))
            #expect(
                try dao.read(where: partly, sortedBy: descriptors).map(\.id) == foundation.filter(kept.contains),
                "\(factory) partly translated")
            #expect(try DomainQuery(sortedBy: descriptors).apply(to: Self.readings).map(\.id) == foundation, "in Swift")
        }
    }
}

/// Every context reads back NaN, ±infinity and -0.0 as stored, in a `Double` and in a `Date?`
/// (the key-value context used to refuse them; SQLite read a NaN `Date?` as `nil`).
@Suite("Non-finite values read back as stored")
struct NonFiniteValueTests {
    struct Sample: Storable, Equatable {
        var id: Int
        var x: Double
        var when: Date?
    }

    @Test(arguments: ContextFactory.everyShipped)
    func nonFiniteValuesReadBackAsStored(_ factory: ContextFactory) throws {
        let fresh = try factory.make()
        defer { fresh.cleanUp() }
        let values: [Double] = [.nan, .infinity, -.infinity, -0.0, 1.5]
        let samples = values.enumerated().map {
            Sample(id: $0.offset, x: $0.element, when: Date(timeIntervalSinceReferenceDate: $0.element))
        }
        try fresh.context.save(samples)
        let read = try fresh.context.fetchAll(Sample.self).sorted { $0.id < $1.id }
        #expect(read.count == samples.count, "\(factory)")
        for (stored, back) in zip(samples, read) {
            #expect(stored.x.bitPattern == back.x.bitPattern, "\(factory) \(stored.x) read back as \(back.x)")
            let seconds = try #require(back.when, "\(factory) \(stored.x) date read back as nil")
                .timeIntervalSinceReferenceDate
            #expect(
                seconds.bitPattern == stored.when!.timeIntervalSinceReferenceDate.bitPattern
                    || (seconds.isNaN && stored.x.isNaN),
                "\(factory) date \(stored.x) read back as \(seconds)")
        }
        #expect(
            try fresh.context.count(Sample.self, matching: .isNull("when")) == 0, "\(factory): a NaN date is not nil")
    }
}
