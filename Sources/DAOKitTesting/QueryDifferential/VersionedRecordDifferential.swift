import DAOKit
import Foundation

/// Checks that ``BaseDao``'s queries answer as a full scan does over a store that holds records
/// of several versions of one entity (``EntitySchema``): records of version 1 (without a field
/// added since, under a field's old name, with an integer since widened to `Double`), of version
/// 2 and of the current version 3. A context that translates conditions or sorts on stored
/// fields must see each record as the current entity reads it.
///
/// ```swift
/// @Test func recordsOfSeveralVersionsAreQueriedAsResolved() throws {
///     let mismatches = try VersionedRecordDifferential.mismatches(makeContext: { MyContext() })
///     #expect(mismatches.isEmpty, "\(mismatches)")
/// }
/// ```
public enum VersionedRecordDifferential {
    /// Saves 8 records of each version, then checks `read(where:)`, `count(where:)`, sorted pages
    /// and `erase(where:)` for predicates on the added, the renamed, the widened and an unchanged
    /// field against a full scan (`read()` filtered, sorted and paged in Swift); then migrates
    /// the older records (``BaseDao/migrate(progress:)-4r1a4``) and checks again.
    /// - Precondition: the context is a ``VersionedStorageContext``.
    /// - Parameter makeContext: an empty context; called once, and once more per erase checked.
    /// - Returns: a line per disagreement; empty when the context agrees.
    /// - Throws: what the context throws.
    public static func mismatches(makeContext: () throws -> any StorageContext) throws -> [String] {
        let context = try makeContext()
        try store(in: context)
        var lines = try check(context, stage: "mixed versions")
        for (name, predicate) in predicates.prefix(5) {
            let fresh = try makeContext()
            try store(in: fresh)
            let dao = BaseDao<FixtureVersionedTicket, FixtureVersionedTicket>(context: fresh)
            let expected = try dao.read().filter { try !predicate.evaluate($0) }
            try dao.erase(where: predicate)
            let left = try dao.read()
            if Set(left) != Set(expected) {
                lines.append("erase(where: \(name)): left \(ids(left)), expected \(ids(expected))")
            }
        }
        let dao = BaseDao<FixtureVersionedTicket, FixtureVersionedTicket>(context: context)
        let migrated = try dao.migrate()
        if migrated != 16 { lines.append("migrate() rewrote \(migrated) records instead of 16") }
        lines += try check(context, stage: "after migrate()")
        lines += try migratedMismatches(in: context)
        return lines
    }

    /// The same over records older than a migration step, which may rewrite any field: 8 records
    /// of version 1 and 8 of version 2, then all of version 2 after `migrate()`.
    private static func migratedMismatches(in context: any StorageContext) throws -> [String] {
        try context.save((0..<8).map { FixtureMigratedTicketV1(id: 100 + $0, title: "t\($0 % 3)", size: $0) })
        try context.save(
            (0..<8).map {
                FixtureMigratedTicket(id: 200 + $0, title: "t\($0 % 3)", size: ["S", "M", "L"][$0 % 3], weight: $0 * 3)
            })
        let dao = BaseDao<FixtureMigratedTicket, FixtureMigratedTicket>(context: context)
        var lines = try agreement(
            of: dao, predicates: migratedPredicates, sorts: migratedSorts, stage: "migration step")
        let migrated = try dao.migrate()
        if migrated != 8 { lines.append("migrate() rewrote \(migrated) migrated tickets instead of 8") }
        lines += try agreement(
            of: dao, predicates: migratedPredicates, sorts: migratedSorts, stage: "after migrate() through a step")
        return lines
    }

    /// Each of `predicates` through `dao` — read, count, and a sorted page per sort — against the
    /// full scan.
    private static func agreement<T: Storable & Hashable>(
        of dao: BaseDao<T, T>, predicates: [(String, Predicate<T>)], sorts: [(String, [SortDescriptor<T>])],
        stage: String
    ) throws -> [String] where T.ID == Int {
        let all = try dao.read()
        var lines: [String] = []
        for (name, predicate) in predicates {
            let expected = try all.filter(predicate.evaluate)
            let read = try dao.read(where: predicate)
            if Set(read) != Set(expected) || read.count != expected.count {
                lines.append("\(stage): read(where: \(name)): expected \(expected.map(\.id)), got \(read.map(\.id))")
            }
            let count = try dao.count(where: predicate)
            if count != expected.count {
                lines.append("\(stage): count(where: \(name)): expected \(expected.count), got \(count)")
            }
            for (sortName, sort) in sorts {
                let page = try dao.read(where: predicate, sortedBy: sort, limit: 5, offset: 1)
                let expectedPage = Array(expected.sorted(using: sort).dropFirst().prefix(5))
                if page != expectedPage {
                    lines.append(
                        "\(stage): read(where: \(name), sortedBy: \(sortName), limit: 5, offset: 1): expected \(expectedPage.map(\.id)), got \(page.map(\.id))"
                    )
                }
            }
        }
        return lines
    }

    private static let migratedPredicates: [(String, Predicate<FixtureMigratedTicket>)] = [
        ("size == \"M\"", #Predicate { $0.size == "M" }),
        ("weight > 4", #Predicate { $0.weight > 4 }),
        ("title == \"t1\" && weight < 10", #Predicate { $0.title == "t1" && $0.weight < 10 }),
        ("[4, 6].contains(weight)", #Predicate { [4, 6].contains($0.weight) }),
        ("size != \"L\"", #Predicate { $0.size != "L" }),
    ]

    private static let migratedSorts: [(String, [SortDescriptor<FixtureMigratedTicket>])] = [
        ("weight, id", [SortDescriptor(\.weight), SortDescriptor(\.id)]),
        ("size ↓, id", [SortDescriptor(\.size, order: .reverse), SortDescriptor(\.id)]),
    ]

    private static func check(_ context: any StorageContext, stage: String) throws -> [String] {
        let dao = BaseDao<FixtureVersionedTicket, FixtureVersionedTicket>(context: context)
        let all = try dao.read()
        var lines: [String] = []
        if all.count != 24 { lines.append("\(stage): read() returned \(all.count) tickets instead of 24") }
        if all.filter({ $0.points == FixtureVersionedTicket.defaultPoints }).count < 8 {
            lines.append("\(stage): the version 1 records did not read the declared default")
        }
        return lines + (try agreement(of: dao, predicates: predicates, sorts: sorts, stage: stage))
    }

    /// 8 records of version 1 (ids 100…), 8 of version 2 (200…) and 8 of version 3 (300…),
    /// whose values overlap across versions so that every predicate selects some of each.
    static func store(in context: any StorageContext) throws {
        try context.save(
            (0..<8).map {
                FixtureVersionedTicketV1(id: 100 + $0, title: "t\($0 % 3)", note: "n\($0 % 4)", size: $0 - 2)
            })
        try context.save(
            (0..<8).map {
                FixtureVersionedTicketV2(
                    id: 200 + $0, title: "t\($0 % 3)", note: "n\($0 % 4)", size: Double($0) - 1.5, points: $0 + 4)
            })
        try context.save(
            (0..<8).map {
                FixtureVersionedTicket(
                    id: 300 + $0, title: "t\($0 % 3)", remark: "n\($0 % 4)", size: Double($0 % 5), points: $0 % 9 + 3)
            })
    }

    private static func ids(_ tickets: [FixtureVersionedTicket]) -> [Int] { tickets.map(\.id) }

    private static let predicates: [(String, Predicate<FixtureVersionedTicket>)] = [
        ("points == 7", #Predicate { $0.points == 7 }),
        ("remark == \"n1\"", #Predicate { $0.remark == "n1" }),
        ("size < 1", #Predicate { $0.size < 1 }),
        ("points != 7", #Predicate { $0.points != 7 }),
        ("remark > \"n1\" && title == \"t0\"", #Predicate { $0.remark > "n1" && $0.title == "t0" }),
        ("points < 7", #Predicate { $0.points < 7 }),
        ("points >= 7 || remark == \"n0\"", #Predicate { $0.points >= 7 || $0.remark == "n0" }),
        ("[3, 7].contains(points)", #Predicate { [3, 7].contains($0.points) }),
        ("remark.hasPrefix(\"n\")", #Predicate { $0.remark.starts(with: "n") }),
        ("size == 2", #Predicate { $0.size == 2 }),
        ("title == \"t1\"", #Predicate { $0.title == "t1" }),
    ]

    private static let sorts: [(String, [SortDescriptor<FixtureVersionedTicket>])] = [
        ("points, id", [SortDescriptor(\.points), SortDescriptor(\.id)]),
        ("remark ↓, id", [SortDescriptor(\.remark, order: .reverse), SortDescriptor(\.id)]),
        ("size, id", [SortDescriptor(\.size), SortDescriptor(\.id)]),
    ]
}
