import BenchmarkModels
import DAOKit
import DAOKitFileStore
import Foundation

/// A target of the query section that compares DAOKit with itself rather than with GRDB: a
/// variant timed next to its baselines in the same run, and the most each ratio may be. Ends with
/// one `RATIO <name>.<n> <label>=<x> target<=<limit>` line per baseline (without `target` for a
/// baseline shown for information).
struct QueryTarget {
    /// The measured variant, without the size: `query.files.indexed.cold`.
    let name: String
    /// One operation, given the dialog of the iteration; returns the ids it read or wrote, in
    /// order, for ``verify``.
    let measured: (_ dialog: Int) throws -> [Int]
    let baselines: [Baseline]
    /// Throws unless every side gives the right answer.
    let verify: () throws -> Void

    /// What the measured variant is divided by.
    struct Baseline {
        /// The variant, without the size: `query.files.indexed.scan`.
        let name: String
        /// What the ratio divides by what, for the `RATIO` line: `cold/scan`.
        let label: String
        /// The most `measured / baseline` may be; `nil` for a ratio shown for information.
        let limit: Double?
        let run: (_ dialog: Int) throws -> [Int]
    }

    private typealias Indexed = DialogMessageEntity<DialogIndexed>
    private typealias Plain = DialogMessageEntity<Unindexed>

    /// The first screen query of a `FileStorageContext` opened on the store at `location`, which
    /// reads every record and builds the indexed entity's indexes, against what a screen query
    /// cost before this release: `read()` (every record read and mapped) and the predicate, sort
    /// and page applied to the domain values — the target; and, for information, against the scan
    /// the context made before it kept anything: a fresh context's `fetchAll`, the query
    /// evaluated on the entities (``ScreenQuery/storageQuery(dialog:)``) and the page mapped. A
    /// cold query does that scan's work and builds the cache, so it cannot beat it.
    static func coldFileQuery(at location: URL, messages: [DialogMessage]) -> QueryTarget {
        let measured: (Int) throws -> [Int] = { dialog in
            let dao = BaseDao<DialogMessage, Indexed>(context: try FileStorageContext(directory: location))
            return try dao.read(
                where: ScreenQuery.predicate(dialog: dialog), sortedBy: ScreenQuery.sortOrder,
                limit: ScreenQuery.pageSize
            ).map(\.id)
        }
        let readAll: (Int) throws -> [Int] = { dialog in
            let dao = BaseDao<DialogMessage, Indexed>(context: try FileStorageContext(directory: location))
            let query = DomainQuery(
                predicate: ScreenQuery.predicate(dialog: dialog), sortedBy: ScreenQuery.sortOrder,
                limit: ScreenQuery.pageSize)
            return try query.apply(to: try dao.read()).map(\.id)
        }
        let scan: (Int) throws -> [Int] = { dialog in
            let context = try FileStorageContext(directory: location)
            let page = try ScreenQuery.storageQuery(dialog: dialog).apply(to: try context.fetchAll(Indexed.self))
            let mapper = EntityMapper()
            return try page.map { try mapper.map($0, to: DialogMessage.self).id }
        }
        return QueryTarget(
            name: "query.files.indexed.cold", measured: measured,
            baselines: [
                Baseline(name: "query.files.indexed.readall", label: "cold/readall", limit: 1.0, run: readAll),
                Baseline(name: "query.files.indexed.scan", label: "cold/scan", limit: nil, run: scan),
            ],
            verify: {
                for dialog in [0, SampleData.dialogCount - 1] {
                    let expected = ScreenQuery.expectedScreen(messages, dialog: dialog).map(\.id)
                    try expect("the cold screen query of dialog \(dialog)", try measured(dialog), equals: expected)
                    try expect("read() and the screen query of dialog \(dialog)", try readAll(dialog), equals: expected)
                    try expect("the scanned screen query of dialog \(dialog)", try scan(dialog), equals: expected)
                }
            })
    }

    /// The screen query on the key-value context, which scans (it decodes every record and
    /// evaluates the query on the entities, mapping only the page), against what it cost before
    /// this release: `read()` (every record decoded and mapped) and the predicate, sort and page
    /// applied to the domain values.
    static func scannedKeyValueQuery(on context: KeyValueStorageContext, messages: [DialogMessage]) -> QueryTarget {
        let dao = BaseDao<DialogMessage, Plain>(context: context)
        let measured: (Int) throws -> [Int] = { dialog in
            try dao.read(
                where: ScreenQuery.predicate(dialog: dialog), sortedBy: ScreenQuery.sortOrder,
                limit: ScreenQuery.pageSize
            ).map(\.id)
        }
        let readAll: (Int) throws -> [Int] = { dialog in
            let query = DomainQuery(
                predicate: ScreenQuery.predicate(dialog: dialog), sortedBy: ScreenQuery.sortOrder,
                limit: ScreenQuery.pageSize)
            return try query.apply(to: try dao.read()).map(\.id)
        }
        return QueryTarget(
            name: "query.keyValue.scan", measured: measured,
            baselines: [Baseline(name: "query.keyValue.readall", label: "scan/readall", limit: 1.0, run: readAll)],
            verify: {
                for dialog in [0, SampleData.dialogCount - 1] {
                    let expected = ScreenQuery.expectedScreen(messages, dialog: dialog).map(\.id)
                    try expect("the key-value screen query of dialog \(dialog)", try measured(dialog), equals: expected)
                    try expect(
                        "read() and the screen query of dialog \(dialog) on key-value", try readAll(dialog),
                        equals: expected)
                }
            })
    }

    /// A query `BaseDao` cannot hand to the context (``ScreenQuery/computedPredicate``, on a
    /// computed property) on `context`, against what every query did before: `read()` and the
    /// predicate evaluated on the domain values.
    static func untranslatedQuery(_ engine: String, on context: any StorageContext, messages: [DialogMessage])
        -> QueryTarget
    {
        let dao = BaseDao<DialogMessage, Plain>(context: context)
        let measured: (Int) throws -> [Int] = { _ in try dao.read(where: ScreenQuery.computedPredicate).map(\.id) }
        let baseline: (Int) throws -> [Int] = { _ in
            try DomainQuery(predicate: ScreenQuery.computedPredicate).apply(to: try dao.read()).map(\.id)
        }
        return QueryTarget(
            name: "query.\(engine).computed", measured: measured,
            baselines: [Baseline(name: "query.\(engine).computed.old", label: "query/old", limit: 1.05, run: baseline)],
            verify: {
                let expected = messages.filter(\.isUnread).map(\.id).sorted()
                try expect("the query on a computed property on \(engine)", try measured(0).sorted(), equals: expected)
                try expect("read() and a filter on \(engine)", try baseline(0).sorted(), equals: expected)
            })
    }

    /// `persist` of one message on an `InMemoryStorageContext` holding `messages`, with the entity
    /// that declares two indexes against the one that declares none. Each persist flips the read
    /// state of the next message, so every one moves its entity in both indexes (the most an
    /// update costs them).
    static func indexedPersist(messages: [DialogMessage]) throws -> QueryTarget {
        let context = InMemoryStorageContext()
        let indexed = BaseDao<DialogMessage, Indexed>(context: context)
        let plain = BaseDao<DialogMessage, Plain>(context: context)
        try indexed.persist(messages)
        try plain.persist(messages)
        let measured = flippingPersists(through: indexed, messages: messages)
        let baseline = flippingPersists(through: plain, messages: messages)
        return QueryTarget(
            name: "query.memory.indexed.persist", measured: measured,
            baselines: [Baseline(name: "query.memory.persist", label: "indexed/plain", limit: 1.3, run: baseline)],
            verify: {
                let (written, plainWritten) = (try measured(0), try baseline(0))
                try expect("the persisted message", plainWritten, equals: written)
                guard let stored = try indexed.read(id: written[0]), stored.isRead != messages[0].isRead else {
                    throw QueryStoreError(
                        description: "the persisted message \(written[0]) was not stored with its read state flipped")
                }
            })
    }

    /// Persists the messages in turn through `dao`, each with its read state flipped from what is
    /// stored: the first pass flips every message, the second flips them back, and so on.
    private static func flippingPersists<Entity: Storable>(
        through dao: BaseDao<DialogMessage, Entity>, messages: [DialogMessage]
    ) -> (Int) throws -> [Int] where Entity.ID == Int {
        var next = 0
        return { _ in
            var message = messages[next % messages.count]
            if (next / messages.count) % 2 == 0 { message.isRead.toggle() }
            next += 1
            try dao.persist(message)
            return [message.id]
        }
    }

    private static func expect(_ what: String, _ found: [Int], equals expected: [Int]) throws {
        guard found == expected else {
            throw QueryStoreError(
                description:
                    "\(what): \(found.prefix(20)) (\(found.count)), expected \(expected.prefix(20)) (\(expected.count))"
            )
        }
    }
}
