import BenchmarkModels
import DAOKitSQLite
import Foundation
import MappingWorkloads

/// SQLite: `BaseDao` over an `SQLiteStorageContext` file against GRDB's own Codable records on a
/// `DatabaseQueue` file, same messages, same index (senderId, isRead, date), both in WAL mode with
/// `synchronous = FULL` (a commit is synced: durable across power loss), at 10,000 and 100,000
/// messages. Ends with `RATIO sqlite.<op>.<n> dao/grdb=<x>`.
struct SQLiteRatioSection: RatioSection {
    static let id = "sqlite"
    static let sizes = [10_000, 100_000]

    /// Wall-clock time: a durable write is mostly waiting for `fsync`. Operations range from a few
    /// microseconds (read by id) to about a second (a batch of 100,000), so batches are long
    /// enough for one large operation and rounds few enough to keep the section near two minutes.
    let defaultTimingPlan = TimingPlan(rounds: 9, batchDuration: .milliseconds(60), clock: .wallClock)

    private let fixtures: [SQLiteFixture]

    init() {
        do {
            fixtures = try Self.sizes.map { try SQLiteFixture(count: $0) }
        } catch {
            fatalError("sqlite section: cannot create the databases: \(error)")
        }
    }

    static func name(_ operation: SQLiteOperation, _ count: Int, grdb: Bool) -> String {
        "sqlite.\(operation.rawValue).\(count) \(grdb ? "grdb" : "dao")"
    }

    var variants: [MeasuredVariant] {
        fixtures.flatMap { fixture in
            SQLiteOperation.allCases.flatMap { operation in
                [
                    MeasuredVariant(name: Self.name(operation, fixture.count, grdb: false)) { iterations in
                        for _ in 0..<iterations { consumeOpaquely(try fixture.runDAO(operation)) }
                    },
                    MeasuredVariant(name: Self.name(operation, fixture.count, grdb: true)) { iterations in
                        for _ in 0..<iterations { consumeOpaquely(try fixture.runGRDB(operation)) }
                    },
                ]
            }
        }
    }

    func verify() throws {
        for fixture in fixtures {
            try fixture.fill()
            try fixture.verify()
        }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        var times = TextTable(
            title:
                "SQLite: BaseDao over SQLiteStorageContext against GRDB 7 Codable records on a DatabaseQueue, both WAL with"
                + " synchronous = FULL, index (senderId, isRead, date) on both (\(plan.clock.rawValue), median of \(plan.rounds)"
                + " interleaved rounds; ± is the interquartile spread). batchInsert empties the table and inserts all n in"
                + " one transaction; persistOne upserts one message (a synced commit); screen is user 7's 20 newest unread;"
                + " count counts all of user 7's unread.",
            header: ["operation", "n", "dao", "grdb", "dao/grdb", "allocs dao", "allocs grdb"])
        var summary: [String] = []
        for fixture in fixtures {
            for operation in SQLiteOperation.allCases {
                let dao = Self.name(operation, fixture.count, grdb: false)
                let grdb = Self.name(operation, fixture.count, grdb: true)
                let ratio = try measurements.medianNanoseconds(dao) / measurements.medianNanoseconds(grdb)
                times.rows.append([
                    operation.rawValue, String(fixture.count), measured(dao, in: measurements),
                    measured(grdb, in: measurements),
                    NumberFormatting.ratio(ratio),
                    NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(dao)),
                    NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(grdb)),
                ])
                summary.append(
                    "RATIO sqlite.\(operation.rawValue).\(fixture.count) dao/grdb=\(NumberFormatting.ratio(ratio))")
            }
        }
        report.add(times)
        summary.forEach { report.addSummaryLine($0) }
    }

    private func measured(_ name: String, in measurements: VariantMeasurements) -> String {
        guard let summary = measurements.nanoseconds[name] else { return "?" }
        return "\(NumberFormatting.duration(summary.median)) ±\(NumberFormatting.percent(summary.relativeSpread))"
    }
}
