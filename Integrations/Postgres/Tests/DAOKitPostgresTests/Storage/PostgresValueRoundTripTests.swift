import DAOKit
import DAOKitSQL
import Foundation
import Testing

@testable import DAOKitPostgres

/// Floating-point values at their edges — -0.0, NaN, the infinities — in `Double`, `Float`, `Date`
/// and `Date?` fields, plain, indexed and nested, read back as stored through every path: `jsonb`
/// keeps numbers as `numeric`, which has no -0.0 and no NaN, so the records spell those out.
@Suite("Postgres values read back as stored")
struct PostgresValueRoundTripTests {
    static let edges: [Double] = [-0.0, .nan, .infinity, -.infinity, 0.0, 1.5]

    /// One gauge per edge value, in every field.
    static let gauges = edges.enumerated().map { index, value in
        Gauge(
            id: index, real: value, indexedReal: value, single: Float(value),
            date: Date(timeIntervalSinceReferenceDate: value),
            indexedDate: Date(timeIntervalSinceReferenceDate: value),
            maybeDate: Date(timeIntervalSinceReferenceDate: value),
            nested: value.isFinite ? [value, -0.0] : [-0.0])  // a nested NaN is no JSON: refused on every SQL context
    }

    @Test func edgeValuesReadBackAsStoredThroughPersistReadAndQuery() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let dao = BaseDao<Gauge, Gauge>(context: context)
        try await dao.persist(Self.gauges)
        for gauge in Self.gauges {
            let byID = try #require(try await dao.read(id: gauge.id))
            #expect(byID.isIdentical(to: gauge), "read(id:) \(gauge.id): \(byID)")
        }
        let all = try await dao.read(sortedBy: [SortDescriptor(\.id)])
        #expect(all.count == Self.gauges.count && zip(all, Self.gauges).allSatisfy { $0.isIdentical(to: $1) }, "\(all)")
        let queried = try await dao.read(where: #Predicate { $0.id >= 0 }, sortedBy: [SortDescriptor(\.id)])
        #expect(
            queried.count == Self.gauges.count && zip(queried, Self.gauges).allSatisfy { $0.isIdentical(to: $1) },
            "\(queried)")
    }

    @Test func aNaNDateIsNotNil() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let dao = BaseDao<Gauge, Gauge>(context: context)
        try await dao.persist(Self.gauges)
        #expect(try await dao.count(where: #Predicate { $0.maybeDate == nil }) == 0)
        let nan = try #require(try await dao.read(id: 1))
        #expect(nan.maybeDate?.timeIntervalSinceReferenceDate.isNaN == true, "\(String(describing: nan.maybeDate))")
    }

    @Test func negativeZeroComparesAsZeroInSQLAndReadsBackNegative() async throws {
        let context = try TestServer.context()
        defer { context.close() }
        let dao = BaseDao<Gauge, Gauge>(context: context)
        // Finite values only: the fields hold numbers alone, so SQL answers the queries.
        let finite = Self.gauges.filter { $0.real.isFinite }
        try await dao.persist(finite)
        let zero = StorageQuery(filter: .compare("indexedReal", .equal, .double(0)), sort: [StorageSortKey("id")])
        #expect(try await context.translation(of: zero, for: Gauge.self).isExact)
        let zeros = try await context.fetch(Gauge.self, matching: zero)
        #expect(zeros.map(\.id) == [0, 4], "-0.0 == 0 as in Swift")
        #expect(
            zeros.first?.indexedReal.sign == .minus
                && zeros.first?.indexedDate.timeIntervalSinceReferenceDate.sign == .minus)
        let below = StorageQuery(filter: .compare("indexedDate", .less, .date(Date(timeIntervalSinceReferenceDate: 0))))
        #expect(try await context.translation(of: below, for: Gauge.self).isExact)
        #expect(try await context.fetch(Gauge.self, matching: below).isEmpty, "-0.0 is not below 0, as in Swift")
        let sorted = try await dao.read(sortedBy: [SortDescriptor(\.indexedReal), SortDescriptor(\.id)])
        #expect(sorted.map(\.id) == [0, 4, 5], "\(sorted.map(\.id))")
    }
}

/// A value in every floating-point shape a record holds: plain, indexed, `Float`, dates, an
/// optional date, and nested in an array.
struct Gauge: Storable, Sendable, CustomStringConvertible {
    static var indexes: [StorageIndex] { [StorageIndex("indexedReal"), StorageIndex("indexedDate")] }
    var id: Int
    var real: Double
    var indexedReal: Double
    var single: Float
    var date: Date
    var indexedDate: Date
    var maybeDate: Date?
    var nested: [Double]

    /// Every value as a number: a `Date` far outside the calendar (an infinity, NaN) has no
    /// description of its own to print.
    var description: String {
        "Gauge(\(id): \(real), \(indexedReal), \(single), \(date.timeIntervalSinceReferenceDate), "
            + "\(indexedDate.timeIntervalSinceReferenceDate), \(String(describing: maybeDate?.timeIntervalSinceReferenceDate)), \(nested))"
    }

    /// Whether every field holds the same bits as `other`'s (any NaN equals any NaN).
    func isIdentical(to other: Gauge) -> Bool {
        func same(_ a: Double, _ b: Double) -> Bool { a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern }
        func same(_ a: Date?, _ b: Date?) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return same(a.timeIntervalSinceReferenceDate, b.timeIntervalSinceReferenceDate)
        }
        return id == other.id && same(real, other.real) && same(indexedReal, other.indexedReal)
            && (single.isNaN ? other.single.isNaN : single.bitPattern == other.single.bitPattern)
            && same(date, other.date) && same(indexedDate, other.indexedDate) && same(maybeDate, other.maybeDate)
            && nested.count == other.nested.count && zip(nested, other.nested).allSatisfy(same)
    }
}
