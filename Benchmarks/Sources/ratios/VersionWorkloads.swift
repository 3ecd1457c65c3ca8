import DAOKit
import DAOKitFileStore
import DAOKitSQLite
import Foundation

/// A ticket of an entity that declares no versions: the baseline of today's read.
struct PlainTicket: Storable, Equatable {
    static var entityName: String { "PlainTicket" }
    var id: Int
    var title: String
    var remark: String
    var count: Double
    var points: Int
}

/// The first release of a versioned ticket: `note` not yet renamed, `count` an integer, no
/// `points`.
struct VersionedTicketV1: Storable, Equatable {
    static var entityName: String { "VersionedTicket" }
    var id: Int
    var title: String
    var note: String
    var count: Int
}

/// The third release: version 2 added `points` and widened `count`, version 3 renamed `note`
/// `remark` — two lightweight steps.
struct VersionedTicketV3: Storable, Equatable {
    static var entityName: String { "VersionedTicket" }
    static let schema = EntitySchema(
        version: 3,
        steps: [
            2: [.added("points", default: 7), .widened("count")],
            3: [.renamed("note", to: "remark")],
        ])
    var id: Int
    var title: String
    var remark: String
    var count: Double
    var points: Int
}

/// The same records under another name, written at version 3: current records of a versioned
/// entity.
struct CurrentTicketV3: Storable, Equatable {
    static var entityName: String { "CurrentTicket" }
    static let schema = VersionedTicketV3.schema
    var id: Int
    var title: String
    var remark: String
    var count: Double
    var points: Int
}

/// The contexts the `versions` and `migrations` sections measure.
enum VersionContextKind: String, CaseIterable {
    case keyValue, files, sqlite
}

/// A store of one context kind, in a directory of its own.
final class VersionStore {
    let kind: VersionContextKind
    let directory: URL
    let context: any VersionedStorageContext

    init(kind: VersionContextKind, name: String) throws {
        self.kind = kind
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daokit-version-ratios-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch kind {
        case .keyValue: context = KeyValueStorageContext(store: InMemoryKeyValueStore())
        case .files: context = try FileStorageContext(directory: directory.appendingPathComponent("store"))
        case .sqlite: context = try SQLiteStorageContext(file: directory.appendingPathComponent("daokit.sqlite"))
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }
}

/// The `versions` section's store: `count` tickets three times over — of an entity that declares
/// no versions, of a versioned one written at its current version, and of the same versioned
/// entity written by its first release (read through two lightweight steps).
final class VersionReadFixture {
    static let count = 10_000
    let store: VersionStore
    var kind: VersionContextKind { store.kind }

    init(kind: VersionContextKind) throws {
        store = try VersionStore(kind: kind, name: "reads")
        let context = store.context
        let ids = 0..<Self.count
        try context.save(
            ids.map { PlainTicket(id: $0, title: "t\($0)", remark: "r\($0 % 97)", count: Double($0), points: 7) })
        try context.save(
            ids.map { CurrentTicketV3(id: $0, title: "t\($0)", remark: "r\($0 % 97)", count: Double($0), points: 7) })
        try context.save(ids.map { VersionedTicketV1(id: $0, title: "t\($0)", note: "r\($0 % 97)", count: $0) })
    }

    func readPlain() throws -> Int { try store.context.fetchAll(PlainTicket.self).count }
    func readCurrent() throws -> Int { try store.context.fetchAll(CurrentTicketV3.self).count }
    func readOld() throws -> Int { try store.context.fetchAll(VersionedTicketV3.self).count }

    /// Throws unless the three reads return the same tickets.
    func verify() throws {
        let plain = try store.context.fetchAll(PlainTicket.self).sorted { $0.id < $1.id }
        let current = try store.context.fetchAll(CurrentTicketV3.self).sorted { $0.id < $1.id }
        let old = try store.context.fetchAll(VersionedTicketV3.self).sorted { $0.id < $1.id }
        let same =
            plain.count == Self.count && current.count == Self.count && old.count == Self.count
            && zip(plain, zip(current, old)).allSatisfy { p, pair in
                p.id == pair.0.id && p.remark == pair.0.remark && p.count == pair.0.count && p.points == pair.0.points
                    && pair.1.id == p.id && pair.1.remark == p.remark && pair.1.count == p.count
                    && pair.1.points == p.points
            }
        guard same else { throw SectionFailure(description: "versions section: \(kind.rawValue) read other tickets") }
    }
}

/// The `migrations` section's store: `count` tickets of the first release, written anew before
/// every measured operation — `migrate()` to version 3, or a read of them all and a write of
/// them all in one batch (what `migrate()` is measured against), or nothing (the writing alone,
/// which the ratio takes out of both).
final class MigrationFixture {
    static let count = 100_000
    let store: VersionStore
    var kind: VersionContextKind { store.kind }
    private let seed: [VersionedTicketV1]

    init(kind: VersionContextKind) throws {
        store = try VersionStore(kind: kind, name: "migrations")
        seed = (0..<Self.count).map { VersionedTicketV1(id: $0, title: "t\($0)", note: "r\($0 % 97)", count: $0) }
    }

    /// Replaces every ticket with the first release's, in one transaction.
    func reseed() throws -> Int {
        try reseed(on: store.context)
    }

    private func reseed<C: VersionedStorageContext>(on context: C) throws -> Int {
        try context.transaction { tx in
            try tx.deleteAll(VersionedTicketV3.self)
            try tx.save(seed)
        }
        return seed.count
    }

    func reseedAndMigrate() throws -> Int {
        _ = try reseed()
        return try BaseDao<VersionedTicketV3, VersionedTicketV3>(context: store.context).migrate()
    }

    func reseedAndReadAndWrite() throws -> Int {
        _ = try reseed()
        let tickets = try store.context.fetchAll(VersionedTicketV3.self)
        try store.context.save(tickets)
        return tickets.count
    }

    /// Throws unless `migrate()` rewrites every ticket and the batch stores what it read.
    func verify() throws {
        guard try reseedAndMigrate() == Self.count,
            try store.context.fetchOlderRecords(VersionedTicketV3.self).values.isEmpty,
            try reseedAndReadAndWrite() == Self.count,
            try store.context.fetchAll(VersionedTicketV3.self).count == Self.count
        else { throw SectionFailure(description: "migrations section: \(kind.rawValue) did not migrate every ticket") }
    }
}
