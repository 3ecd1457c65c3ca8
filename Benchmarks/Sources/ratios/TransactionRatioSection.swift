import Foundation
import MappingWorkloads

/// Transactions: one transaction that persists a dialog and 20 messages through `BaseDao`s on its
/// handle, against one batch of 21 messages on the same context (memory, key-value over an
/// in-memory store, the file store, an SQLite file), and on SQLite against GRDB's `write { }` doing the same, both
/// in WAL mode with `synchronous = FULL`. Ends with `RATIO transactions.<context> tx/batch=<x>`
/// and `RATIO transactions.sqlite dao/grdb=<x>`.
struct TransactionRatioSection: RatioSection {
    static let id = "transactions"

    /// Wall-clock time: an SQLite commit waits for `fsync`, which CPU time would leave out. The
    /// sides of one context run one after the other in every round, and each ratio is the median
    /// of the rounds' ratios: `fsync` times drift over a run by more than the targets' 10%.
    let defaultTimingPlan = TimingPlan(
        rounds: 21, batchDuration: .milliseconds(60), clock: .wallClock, keepsGroupsTogether: true)

    private let fixtures: [TransactionFixture]

    init() {
        do {
            fixtures = try TransactionContextKind.allCases.map(TransactionFixture.init(kind:))
        } catch {
            fatalError("transactions section: cannot create the contexts: \(error)")
        }
    }

    static func name(_ kind: TransactionContextKind, _ side: String) -> String {
        "transactions.\(kind.rawValue) \(side)"
    }

    var variants: [MeasuredVariant] {
        fixtures.flatMap { fixture in
            let group = fixture.kind.rawValue
            var variants = [
                MeasuredVariant(
                    name: Self.name(fixture.kind, "tx"),
                    run: { iterations in
                        for _ in 0..<iterations { consumeOpaquely(try fixture.runTransaction()) }
                    }, group: group),
                MeasuredVariant(
                    name: Self.name(fixture.kind, "batch"),
                    run: { iterations in
                        for _ in 0..<iterations { consumeOpaquely(try fixture.runBatch()) }
                    }, group: group),
            ]
            if fixture.queue != nil {
                variants.append(
                    MeasuredVariant(
                        name: Self.name(fixture.kind, "grdb"),
                        run: { iterations in
                            for _ in 0..<iterations { consumeOpaquely(try fixture.runGRDB()) }
                        }, group: group))
            }
            return variants
        }
    }

    func verify() throws {
        for fixture in fixtures { try fixture.verify() }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        var times = TextTable(
            title:
                "Transactions: one dialog and 20 messages in one transaction (tx) against 21 messages in one batch, on"
                + " the same context; on SQLite also GRDB 7's write { } of the same dialog and messages, both WAL with"
                + " synchronous = FULL (\(plan.clock.rawValue), median of \(plan.rounds) interleaved rounds; ± is the"
                + " interquartile spread; the ratios are the medians of the rounds' ratios, the sides of a context"
                + " timed one after the other). Every write replaces records already stored.",
            header: ["context", "tx", "batch", "grdb", "tx/batch", "tx/grdb"])
        var summary: [String] = []
        for fixture in fixtures {
            let tx = Self.name(fixture.kind, "tx")
            let batch = Self.name(fixture.kind, "batch")
            let grdb = Self.name(fixture.kind, "grdb")
            let perBatch = try measurements.pairedRatio(tx, batch).median
            summary.append(
                "RATIO transactions.\(fixture.kind.rawValue) tx/batch=\(NumberFormatting.ratio(perBatch)) target<=1.10")
            var perGRDB = "–"
            if fixture.queue != nil {
                let ratio = try measurements.pairedRatio(tx, grdb).median
                perGRDB = NumberFormatting.ratio(ratio)
                summary.append(
                    "RATIO transactions.\(fixture.kind.rawValue) dao/grdb=\(NumberFormatting.ratio(ratio)) target<=1.00"
                )
            }
            times.rows.append([
                fixture.kind.rawValue, measured(tx, in: measurements), measured(batch, in: measurements),
                fixture.queue != nil ? measured(grdb, in: measurements) : "–", NumberFormatting.ratio(perBatch),
                perGRDB,
            ])
        }
        report.add(times)
        summary.forEach { report.addSummaryLine($0) }
    }

    private func measured(_ name: String, in measurements: VariantMeasurements) -> String {
        guard let summary = measurements.nanoseconds[name] else { return "?" }
        return "\(NumberFormatting.duration(summary.median)) ±\(NumberFormatting.percent(summary.relativeSpread))"
    }
}
