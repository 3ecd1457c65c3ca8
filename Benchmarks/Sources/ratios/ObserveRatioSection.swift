import BenchmarkModels
import DAOKit
import Foundation

/// Live results: what a write pays for observers, and how long a committed change takes to reach
/// an observer.
///
/// **Write cost.** `BaseDao.persist(_:)` of one message into a context holding 1,000, with 0, 1
/// and 100 observers of queries the writes never match (`senderId == -k`), for the memory,
/// key-value and file contexts. Each observer count has a context of its own, set up once; the
/// variants are timed interleaved as usual. The clock is the writer's thread CPU time: what the
/// write itself pays (posting a change is one lock, one append, one signal); the observers' re-runs
/// happen on DAOKit's threads, and a wall-clock comparison, which also shows their competition
/// for this 2-core machine's CPUs, is printed beside it.
///
/// **Latency.** From the moment `persist` returns to the moment the consuming task holds the new
/// value of an `observe(id:)` stream, in-process (memory and file contexts) and cross-process (a
/// child `ratios` process writes a file store the parent observes; both read `CLOCK_MONOTONIC`).
struct ObserveRatioSection: RatioSection {
    static let id = "observe"

    let defaultTimingPlan = TimingPlan(rounds: 9, batchDuration: .milliseconds(60), clock: .threadCPUTime)

    static let observerCounts = [0, 1, 100]
    static let storedCount = 1_000

    enum ContextKind: String, CaseIterable {
        case memory, keyValue, file
    }

    /// One context per kind and observer count, with its observers running.
    private let fixtures: [String: ObservedWriteFixture]

    init() {
        var fixtures: [String: ObservedWriteFixture] = [:]
        for kind in ContextKind.allCases {
            for count in Self.observerCounts {
                fixtures[Self.name(kind, count)] = ObservedWriteFixture(
                    kind: kind, observers: count, stored: Self.storedCount)
            }
        }
        self.fixtures = fixtures
    }

    static func name(_ kind: ContextKind, _ observers: Int) -> String {
        "observe.\(kind.rawValue).write.\(observers)"
    }

    var variants: [MeasuredVariant] {
        ContextKind.allCases.flatMap { kind in
            Self.observerCounts.map { count in
                let fixture = fixtures[Self.name(kind, count)]!
                return MeasuredVariant(name: Self.name(kind, count)) { iterations in try fixture.write(iterations) }
            }
        }
    }

    func verify() throws {
        for fixture in fixtures.values { try fixture.verify() }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        var writes = TextTable(
            title:
                "A write (persist of one message, \(Self.storedCount) stored) with 0, 1 and 100 observers of queries it does not"
                + " match: the writer's \(plan.clock.rawValue), median of \(plan.rounds) interleaved rounds (± interquartile"
                + " spread); wall-clock medians of the same writes beside it (the observers' work on DAOKit's threads shares"
                + " the machine's CPUs with the writer)",
            header: ["context", "0 observers", "1", "100", "100/0 (CPU)", "100/0 (wall)"])
        var summary: [String] = []
        let wall = try ObservedWriteWallClock.measure(
            fixtures, kinds: ContextKind.allCases, counts: Self.observerCounts)
        for kind in ContextKind.allCases {
            let none = try measurements.medianNanoseconds(Self.name(kind, 0))
            let hundred = try measurements.medianNanoseconds(Self.name(kind, 100))
            let wallRatio = wall[Self.name(kind, 100)]! / wall[Self.name(kind, 0)]!
            writes.rows.append(
                [kind.rawValue] + Self.observerCounts.map { measured(Self.name(kind, $0), in: measurements) }
                    + [NumberFormatting.ratio(hundred / none), NumberFormatting.ratio(wallRatio)])
            summary.append(
                "RATIO observe.\(kind.rawValue).write dao(100 observers)/dao(0)=\(NumberFormatting.ratio(hundred / none))"
            )
        }
        report.add(writes)

        // The write-cost observers are done: end them and let re-runs still queued drain, so that the
        // latency is measured on idle DAOKit threads.
        for fixture in fixtures.values { fixture.stopObserving() }
        Thread.sleep(forTimeInterval: 2)
        var latency = TextTable(
            title: "Commit → observer delivery (observe(id:), one write at a time): to the consuming task holding the"
                + " value, from persist returning (negative: delivered before persist returned to its caller) and"
                + " from persist being called (an upper bound: includes the write). Cross-process: the child's save"
                + " returning → the parent's task holding the value; writes 150 ms apart, the store polled every 100 ms",
            header: ["case", "writes", "delivered", "median", "p99", "max", "median from call", "p99 from call"])
        for run in try ObserveLatency.measureAll() {
            latency.rows.append([
                run.name, "\(run.writes)", "\(run.samples.count)",
                signed(run.median), signed(run.p99),
                signed(run.samples.max() ?? 0),
                run.fromCall.isEmpty ? "-" : NumberFormatting.duration(run.medianFromCall),
                run.fromCall.isEmpty ? "-" : NumberFormatting.duration(run.p99FromCall),
            ])
            summary.append("LATENCY observe.\(run.name) median=\(signed(run.median)) p99=\(signed(run.p99))")
        }
        report.add(latency)
        summary.forEach { report.addSummaryLine($0) }
    }

    /// A duration that may be negative (delivered before the writer's call returned).
    private func signed(_ nanoseconds: Double) -> String {
        nanoseconds < 0 ? "-" + NumberFormatting.duration(-nanoseconds) : NumberFormatting.duration(nanoseconds)
    }

    private func measured(_ name: String, in measurements: VariantMeasurements) -> String {
        guard let summary = measurements.nanoseconds[name] else { return "?" }
        return "\(NumberFormatting.duration(summary.median)) ±\(NumberFormatting.percent(summary.relativeSpread))"
    }
}
