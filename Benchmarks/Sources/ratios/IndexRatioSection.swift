import BenchmarkModels
import DAOKit
import DAOKitFileStore
import DAOKitSQLite
import Foundation
import GRDB
import MappingWorkloads

/// Issue 24's index targets. Enum push-down: 20,000 tasks on SQLite, a count by status and the
/// first page of open tasks by due date with the status an enum against the same queries with it a
/// `String` (`enum/string`, target ≤ 2). Negations: a count of `!isRead` over the whole store, with
/// an index on `isRead`, on the memory, file and SQLite contexts against GRDB with the same index
/// (in memory for the memory context, on disk for the others) (`dao/grdb`, target ≤ 1).
struct IndexRatioSection: RatioSection {
    static let id = "indexes"
    static let taskCount = 20_000
    static let messageSizes = [10_000, 100_000]
    /// Writing 100,000 record files durably takes minutes: the file context is measured at 10,000.
    static let fileSizes = [10_000]

    let defaultTimingPlan = TimingPlan(rounds: 9, batchDuration: .milliseconds(60), clock: .wallClock)

    private let tasks: IndexTaskFixture
    private let unread: [UnreadFixture]

    init() {
        do {
            tasks = try IndexTaskFixture(count: Self.taskCount)
            unread = try Self.messageSizes.map { try UnreadFixture(count: $0, withFiles: Self.fileSizes.contains($0)) }
        } catch {
            fatalError("indexes section: cannot create the stores: \(error)")
        }
    }

    var variants: [MeasuredVariant] {
        var variants: [MeasuredVariant] = []
        for operation in IndexTaskFixture.Operation.allCases {
            for asEnum in [true, false] {
                variants.append(
                    MeasuredVariant(name: tasks.name(operation, asEnum: asEnum)) { iterations in
                        for _ in 0..<iterations { consumeOpaquely(try tasks.run(operation, asEnum: asEnum)) }
                    })
            }
        }
        for fixture in unread {
            for engine in fixture.engines {
                variants.append(
                    MeasuredVariant(name: fixture.name(engine.name)) { iterations in
                        for _ in 0..<iterations { consumeOpaquely(try engine.count()) }
                    })
            }
        }
        return variants
    }

    func verify() throws {
        try tasks.verify()
        for fixture in unread { try fixture.verify() }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        var table = TextTable(
            title:
                "Indexes (issue 24): enum fields pushed down, and negations along an index (\(plan.clock.rawValue), median of"
                + " \(plan.rounds) interleaved rounds). Tasks: \(Self.taskCount) on SQLite, status an enum or a String, indexes"
                + " (projectID, status) and (status, due). Unread: count(where: !isRead) over the whole store, index on isRead.",
            header: ["operation", "variant", "time", "ratio"])
        var summary: [String] = []
        for operation in IndexTaskFixture.Operation.allCases {
            let enumName = tasks.name(operation, asEnum: true)
            let stringName = tasks.name(operation, asEnum: false)
            let ratio = try measurements.medianNanoseconds(enumName) / measurements.medianNanoseconds(stringName)
            table.rows.append([
                operation.rawValue, "enum", measured(enumName, in: measurements), NumberFormatting.ratio(ratio),
            ])
            table.rows.append([operation.rawValue, "string", measured(stringName, in: measurements), ""])
            summary.append(
                "RATIO indexes.sqlite.\(operation.rawValue).\(Self.taskCount) enum/string=\(NumberFormatting.ratio(ratio)) target<=2.00"
            )
        }
        for fixture in unread {
            for engine in fixture.engines where engine.baseline != nil {
                let name = fixture.name(engine.name)
                let baseline = fixture.name(engine.baseline!)
                let ratio = try measurements.medianNanoseconds(name) / measurements.medianNanoseconds(baseline)
                table.rows.append([
                    "unreadCount.\(fixture.count)", engine.name, measured(name, in: measurements),
                    NumberFormatting.ratio(ratio),
                ])
                summary.append(
                    "RATIO indexes.\(engine.name).unreadCount.\(fixture.count) dao/grdb=\(NumberFormatting.ratio(ratio)) target<=1.00"
                )
            }
            for engine in fixture.engines where engine.baseline == nil {
                table.rows.append([
                    "unreadCount.\(fixture.count)", engine.name, measured(fixture.name(engine.name), in: measurements),
                    "",
                ])
            }
        }
        report.add(table)
        summary.forEach { report.addSummaryLine($0) }
    }

    private func measured(_ name: String, in measurements: VariantMeasurements) -> String {
        guard let summary = measurements.nanoseconds[name] else { return "?" }
        return "\(NumberFormatting.duration(summary.median)) ±\(NumberFormatting.percent(summary.relativeSpread))"
    }
}

// MARK: - Tasks: an enum status against a String one

enum IndexTaskStatus: String, Codable, CaseIterable, Comparable, Sendable {
    case open, started, blocked, done
    static func < (lhs: IndexTaskStatus, rhs: IndexTaskStatus) -> Bool { lhs.rawValue < rhs.rawValue }
}

struct IndexTask: Codable, Identifiable, Equatable, Sendable {
    var id: Int
    var projectID: Int
    var status: IndexTaskStatus
    var due: Date
    var title: String
}

struct IndexTaskEntity: Storable {
    static var entityName: String { "EnumTask" }
    static var indexes: [StorageIndex] { [StorageIndex("projectID", "status"), StorageIndex("status", "due")] }
    var id: Int
    var projectID: Int
    var status: IndexTaskStatus
    var due: Date
    var title: String
}

struct IndexStringTask: Codable, Identifiable, Equatable, Sendable {
    var id: Int
    var projectID: Int
    var status: String
    var due: Date
    var title: String
}

struct IndexStringTaskEntity: Storable {
    static var entityName: String { "StringTask" }
    static var indexes: [StorageIndex] { [StorageIndex("projectID", "status"), StorageIndex("status", "due")] }
    var id: Int
    var projectID: Int
    var status: String
    var due: Date
    var title: String
}

/// 20,000 tasks twice in one SQLite file: with the status an enum, and as a `String`.
final class IndexTaskFixture {
    enum Operation: String, CaseIterable {
        case countByStatus, openPage
    }

    static let pageSize = 20
    let directory: URL
    let enumDao: BaseDao<IndexTask, IndexTaskEntity>
    let stringDao: BaseDao<IndexStringTask, IndexStringTaskEntity>
    let tasks: [IndexTask]
    /// Cycles through the statuses, so that successive counts do different work.
    private var cursor = 0

    init(count: Int) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daokit-index-ratios-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let context = try SQLiteStorageContext(file: directory.appendingPathComponent("tasks.sqlite"))
        enumDao = BaseDao(context: context)
        stringDao = BaseDao(context: context)
        tasks = (0..<count).map { i in
            IndexTask(
                id: i, projectID: i % 50, status: IndexTaskStatus.allCases[(i * 7) % 4],
                due: Date(timeIntervalSinceReferenceDate: Double((i * 7_919) % 100_000) * 60), title: "task \(i)")
        }
        try enumDao.persist(tasks)
        try stringDao.persist(
            tasks.map {
                IndexStringTask(
                    id: $0.id, projectID: $0.projectID, status: $0.status.rawValue, due: $0.due, title: $0.title)
            })
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func name(_ operation: Operation, asEnum: Bool) -> String {
        "indexes.sqlite.\(operation.rawValue) \(asEnum ? "enum" : "string")"
    }

    func run(_ operation: Operation, asEnum: Bool) throws -> Int {
        cursor = (cursor + 1) % IndexTaskStatus.allCases.count
        let status = IndexTaskStatus.allCases[cursor]
        let raw = status.rawValue
        switch (operation, asEnum) {
        case (.countByStatus, true): return try enumDao.count(where: #Predicate { $0.status == status })
        case (.countByStatus, false): return try stringDao.count(where: #Predicate { $0.status == raw })
        case (.openPage, true):
            let open = IndexTaskStatus.open
            return try enumDao.read(
                where: #Predicate { $0.status == open }, sortedBy: [SortDescriptor(\.due)], limit: Self.pageSize
            ).count
        case (.openPage, false):
            let open = IndexTaskStatus.open.rawValue
            return try stringDao.read(
                where: #Predicate { $0.status == open }, sortedBy: [SortDescriptor(\.due)], limit: Self.pageSize
            ).count
        }
    }

    func verify() throws {
        for status in IndexTaskStatus.allCases {
            let raw = status.rawValue
            let expected = tasks.filter { $0.status == status }.count
            guard try enumDao.count(where: #Predicate { $0.status == status }) == expected,
                try stringDao.count(where: #Predicate { $0.status == raw }) == expected
            else {
                throw SQLiteRatioMismatch("indexes: count by status differs")
            }
        }
        let open = IndexTaskStatus.open
        let page = try enumDao.read(
            where: #Predicate { $0.status == open }, sortedBy: [SortDescriptor(\.due)], limit: Self.pageSize)
        let expected = Array(
            tasks.filter { $0.status == .open }.sorted(using: [
                SortDescriptor(\IndexTask.due), SortDescriptor(\IndexTask.id),
            ])
            .prefix(Self.pageSize))
        guard page.map(\.due) == expected.map(\.due) else {
            throw SQLiteRatioMismatch("indexes: the open page differs")
        }
        // The point of the section: both queries are handed to SQLite whole and served by an index.
        let explanation = try enumDao.explain(
            where: #Predicate { $0.status == open }, sortedBy: [SortDescriptor(\.due)], limit: Self.pageSize)
        guard !explanation.evaluatesPredicateInSwift, !explanation.pagesInSwift, explanation.access?.index != nil else {
            throw SQLiteRatioMismatch("indexes: the enum page is not pushed down: \(explanation)")
        }
    }
}

// MARK: - Unread counts along an index

/// `Message` with one index, on `isRead`.
struct UnreadIndexedMessageEntity: Storable {
    static var entityName: String { "UnreadMessage" }
    static var indexes: [StorageIndex] { [StorageIndex("isRead")] }
    var id: Int
    var date: Date
    var text: String
    var senderId: Int
    var receiverId: Int
    var type: MessageType
    var isIncoming: Bool
    var isRead: Bool
    var attachment: URL?
    var note: String?
}

/// `count` messages in the memory, file and SQLite contexts and in GRDB in memory and on disk,
/// each with an index on `isRead`.
final class UnreadFixture {
    struct Engine {
        let name: String
        /// The engine this one's `RATIO` divides by; `nil` for a baseline.
        let baseline: String?
        let count: () throws -> Int
    }

    let count: Int
    let expected: Int
    let directory: URL
    private(set) var engines: [Engine] = []

    init(count: Int, withFiles: Bool) throws {
        self.count = count
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "daokit-unread-ratios-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let messages = SampleData.messages(count: count)
        expected = messages.filter { !$0.isRead }.count

        func dao(_ context: any StorageContext) throws -> BaseDao<Message, UnreadIndexedMessageEntity> {
            let dao = BaseDao<Message, UnreadIndexedMessageEntity>(context: context)
            for start in stride(from: 0, to: messages.count, by: 10_000) {
                try dao.persist(Array(messages[start..<min(start + 10_000, messages.count)]))
            }
            return dao
        }
        func grdb(_ queue: DatabaseQueue) throws -> DatabaseQueue {
            try queue.write { db in
                try GRDBMessage.createTable(db)
                try db.create(index: "message_isRead", on: "message", columns: ["isRead"])
                for message in messages { try GRDBMessage(message).insert(db) }
            }
            return queue
        }
        let unread = #Predicate<Message> { !$0.isRead }
        let grdbMemory = try grdb(try DatabaseQueue())
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = WAL") }
        let grdbDisk = try grdb(
            try DatabaseQueue(path: directory.appendingPathComponent("grdb.sqlite").path, configuration: configuration))
        let grdbCount = { (queue: DatabaseQueue) in
            { try queue.read { db in try GRDBMessage.filter(Column("isRead") == false).fetchCount(db) } }
        }
        let memory = try dao(InMemoryStorageContext())
        let sqlite = try dao(try SQLiteStorageContext(file: directory.appendingPathComponent("daokit.sqlite")))
        engines = [
            Engine(name: "grdb.memory", baseline: nil, count: grdbCount(grdbMemory)),
            Engine(name: "grdb.disk", baseline: nil, count: grdbCount(grdbDisk)),
            Engine(name: "memory", baseline: "grdb.memory", count: { try memory.count(where: unread) }),
            Engine(name: "sqlite", baseline: "grdb.disk", count: { try sqlite.count(where: unread) }),
        ]
        if withFiles {
            let files = try dao(try FileStorageContext(directory: directory.appendingPathComponent("files")))
            engines.append(Engine(name: "files", baseline: "grdb.disk", count: { try files.count(where: unread) }))
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func name(_ engine: String) -> String { "indexes.\(engine).unreadCount.\(count)" }

    func verify() throws {
        for engine in engines {
            let counted = try engine.count()
            guard counted == expected else {
                throw SQLiteRatioMismatch(
                    "indexes: \(engine.name) counts \(counted) unread of \(count), not \(expected)")
            }
        }
    }
}
