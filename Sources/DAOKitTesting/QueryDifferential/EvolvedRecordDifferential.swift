import DAOKit
import Foundation

/// Checks that ``BaseDao``'s queries answer as a full scan does whatever the stored records look
/// like: records written before a field existed (so lacking it), holding `null` in it, or that
/// cannot be decoded at all.
///
/// ```swift
/// @Test func recordsOfAnOlderVersionAreQueriedAsDecoded() throws {
///     let mismatches = try EvolvedRecordDifferential.mismatches(makeContext: { MyContext() })
///     #expect(mismatches.isEmpty, "\(mismatches)")
/// }
/// ```
public enum EvolvedRecordDifferential {
    /// Saves tickets of this version, tickets of an older one (no `points`, no `due`) and tickets
    /// holding `null` in `points` — all of which decode, `points` as `0` — then checks
    /// `read(where:)`, `count(where:)`, sorted pages and `erase(where:)` for predicates on those
    /// fields under every operator against a full scan (`read()` filtered, sorted and paged in
    /// Swift).
    /// - Parameter makeContext: an empty context; called once, and once more per erase checked.
    /// - Returns: a line per disagreement; empty when the context agrees.
    /// - Throws: what the context throws.
    public static func mismatches(makeContext: () throws -> any StorageContext) throws -> [String] {
        let context = try makeContext()
        try store(in: context)
        let dao = BaseDao<FixtureTicket, FixtureTicketEntity>(context: context)
        let all = try dao.read()
        var lines: [String] = []
        if all.count != 24 { lines.append("read(): \(all.count) tickets instead of 24") }
        for (name, predicate) in predicates {
            let expected = try all.filter(predicate.evaluate)
            let read = try dao.read(where: predicate)
            if Set(read) != Set(expected) || read.count != expected.count {
                lines.append("read(where: \(name)): expected ids \(ids(expected)), got \(ids(read))")
            }
            let count = try dao.count(where: predicate)
            if count != expected.count {
                lines.append("count(where: \(name)): expected \(expected.count), got \(count)")
            }
            for (sortName, sort) in sorts {
                let page = try dao.read(where: predicate, sortedBy: sort, limit: 5, offset: 1)
                let expectedPage = Array(expected.sorted(using: sort).dropFirst().prefix(5))
                if page != expectedPage {
                    lines.append(
                        "read(where: \(name), sortedBy: \(sortName), limit: 5, offset: 1): expected \(ids(expectedPage)), got \(ids(page))"
                    )
                }
            }
        }
        for (name, predicate) in predicates.prefix(4) {
            let fresh = try makeContext()
            try store(in: fresh)
            let freshDao = BaseDao<FixtureTicket, FixtureTicketEntity>(context: fresh)
            let expected = try all.filter { try !predicate.evaluate($0) }
            try freshDao.erase(where: predicate)
            let left = try freshDao.read()
            if Set(left) != Set(expected) {
                lines.append("erase(where: \(name)): left \(ids(left)), expected \(ids(expected))")
            }
        }
        return lines
    }

    /// Saves this version's tickets and, under the same ids space, untitled records (stored before
    /// a rename; they cannot be decoded), then checks that a query whose condition rules them out
    /// on what is stored answers as a full scan of the decodable tickets would, and that one that
    /// selects them fails naming one of them: a context that evaluates conditions on stored values
    /// (SQL) must not fail a query that does not return an undecodable record.
    /// - Returns: a line per disagreement; empty when the context agrees.
    /// - Throws: what the context throws while storing.
    public static func undecodableMismatches(in context: any StorageContext) throws -> [String] {
        let tickets = (0..<12).map { FixtureTicketEntity(id: $0, title: "t\($0 % 4)", points: $0 % 5, due: nil) }
        try context.save(tickets)
        try context.save((100..<103).map { FixtureTicketRecordUntitled(id: $0, name: "old", points: 3) })
        let dao = BaseDao<FixtureTicket, FixtureTicketEntity>(context: context)
        let decodable = tickets.map { FixtureTicket(id: $0.id, title: $0.title, points: $0.points, due: $0.due) }
        var lines: [String] = []
        let sparing: [(String, Predicate<FixtureTicket>)] = [
            ("title == \"t1\"", #Predicate { $0.title == "t1" }),
            ("points == 4", #Predicate { $0.points == 4 }),
            ("points < 3", #Predicate { $0.points < 3 }),
            ("title == \"t2\" && points > 1", #Predicate { $0.title == "t2" && $0.points > 1 }),
        ]
        for (name, predicate) in sparing {
            let expected = try decodable.filter(predicate.evaluate)
            do {
                let read = try dao.read(where: predicate)
                if Set(read) != Set(expected) {
                    lines.append("read(where: \(name)): expected \(ids(expected)), got \(ids(read))")
                }
                let count = try dao.count(where: predicate)
                if count != expected.count {
                    lines.append("count(where: \(name)): expected \(expected.count), got \(count)")
                }
                let page = try dao.read(where: predicate, sortedBy: [SortDescriptor(\.id)], limit: 2)
                if page != Array(expected.sorted { $0.id < $1.id }.prefix(2)) {
                    lines.append("read(where: \(name), sortedBy: id, limit: 2): got \(ids(page))")
                }
            } catch {
                lines.append("\(name) does not return an undecodable record, yet failed: \(error)")
            }
        }
        do {
            let read = try dao.read(where: #Predicate { $0.points == 3 })
            lines.append("points == 3 selects undecodable records, yet returned \(ids(read))")
        } catch let error as StorageError {
            if !"\(error)".contains("100") && !"\(error)".contains("101") && !"\(error)".contains("102") {
                lines.append("points == 3 failed without naming an undecodable record: \(error)")
            }
        }
        return lines
    }

    /// 16 tickets of this version (`points` -2…5, `due` sometimes `nil`), 5 of version 1 and 3
    /// holding `null` in `points`.
    static func store(in context: any StorageContext) throws {
        let current = (0..<16).map { number in
            FixtureTicketEntity(
                id: number, title: "t\(number % 3)", points: number % 8 - 2,
                due: number % 4 == 0 ? nil : Double(number % 5))
        }
        try context.save(current)
        try context.save((100..<105).map { FixtureTicketRecordV1(id: $0, title: "t\($0 % 3)") })
        try context.save((200..<203).map { FixtureTicketRecordOther(id: $0, title: "t\($0 % 3)", points: nil) })
    }

    private static func ids(_ tickets: [FixtureTicket]) -> [Int] { tickets.map(\.id) }

    private static let predicates: [(String, Predicate<FixtureTicket>)] = [
        ("points == 0", #Predicate { $0.points == 0 }),
        ("points != 0", #Predicate { $0.points != 0 }),
        ("points < 5", #Predicate { $0.points < 5 }),
        ("points > 0", #Predicate { $0.points > 0 }),
        ("points <= -1", #Predicate { $0.points <= -1 }),
        ("points >= 0", #Predicate { $0.points >= 0 }),
        ("!(points == 0)", #Predicate { !($0.points == 0) }),
        ("points == 0 || title == \"t1\"", #Predicate { $0.points == 0 || $0.title == "t1" }),
        ("points == 0 && title == \"t1\"", #Predicate { $0.points == 0 && $0.title == "t1" }),
        ("[0, 3].contains(points)", #Predicate { [0, 3].contains($0.points) }),
        ("![0, 3].contains(points)", #Predicate { ![0, 3].contains($0.points) }),
        ("due == nil", #Predicate { $0.due == nil }),
        ("due != nil", #Predicate { $0.due != nil }),
        ("due == 1", #Predicate { $0.due == 1 }),
        ("points > 0 && due == nil", #Predicate { $0.points > 0 && $0.due == nil }),
    ]

    private static let sorts: [(String, [SortDescriptor<FixtureTicket>])] = [
        ("points, id", [SortDescriptor(\.points), SortDescriptor(\.id)]),
        ("points ↓, id", [SortDescriptor(\.points, order: .reverse), SortDescriptor(\.id)]),
        ("title, points, id", [SortDescriptor(\.title), SortDescriptor(\.points), SortDescriptor(\.id)]),
    ]
}
