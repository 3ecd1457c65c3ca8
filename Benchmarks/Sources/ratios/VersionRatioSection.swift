import Foundation
import MappingWorkloads

/// Entity versions: reading 10,000 tickets of a versioned entity written at its current version
/// against the same tickets of an entity that declares no versions (today's read), and 10,000
/// tickets written by the entity's first release — read through two lightweight steps, an added
/// field with a default and a rename — against the current ones, on the key-value context over
/// an in-memory store, the file store and an SQLite file. Ends with
/// `RATIO versions.<context> current/plain=<x>` and `RATIO versions.<context> old/current=<x>`.
struct VersionRatioSection: RatioSection {
    static let id = "versions"

    /// Wall-clock time, the sides of a context one after the other in every round, each ratio the
    /// median of the rounds' ratios: the targets (3%) are closer than load drifts over a run.
    let defaultTimingPlan = TimingPlan(
        rounds: 21, batchDuration: .milliseconds(80), clock: .wallClock, keepsGroupsTogether: true)

    private let fixtures: [VersionReadFixture]

    init() {
        do {
            fixtures = try VersionContextKind.allCases.map(VersionReadFixture.init(kind:))
        } catch {
            fatalError("versions section: cannot create the stores: \(error)")
        }
    }

    static func name(_ kind: VersionContextKind, _ side: String) -> String {
        "versions.\(kind.rawValue) \(side)"
    }

    var variants: [MeasuredVariant] {
        fixtures.flatMap { fixture in
            let group = fixture.kind.rawValue
            let reads: [(String, () throws -> Int)] = [
                ("plain", fixture.readPlain), ("current", fixture.readCurrent), ("old", fixture.readOld),
            ]
            return reads.map { side, read in
                MeasuredVariant(
                    name: Self.name(fixture.kind, side),
                    run: { iterations in
                        for _ in 0..<iterations { consumeOpaquely(try read()) }
                    }, group: group)
            }
        }
    }

    func verify() throws {
        for fixture in fixtures { try fixture.verify() }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        var times = TextTable(
            title:
                "Entity versions: reading \(VersionReadFixture.count) tickets of an entity that declares no versions"
                + " (plain), of a versioned entity written at its current version 3 (current), and written by its"
                + " version 1 and read through two lightweight steps (old) (\(plan.clock.rawValue), median of"
                + " \(plan.rounds) interleaved rounds; ± is the interquartile spread; the ratios are the medians of the"
                + " rounds' ratios).",
            header: ["context", "plain", "current", "old", "current/plain", "old/current"])
        var summary: [String] = []
        for fixture in fixtures {
            let plain = Self.name(fixture.kind, "plain")
            let current = Self.name(fixture.kind, "current")
            let old = Self.name(fixture.kind, "old")
            let currentRatio = try measurements.pairedRatio(current, plain).median
            let oldRatio = try measurements.pairedRatio(old, current).median
            summary.append(
                "RATIO versions.\(fixture.kind.rawValue) current/plain=\(NumberFormatting.ratio(currentRatio)) target<=1.03"
            )
            summary.append(
                "RATIO versions.\(fixture.kind.rawValue) old/current=\(NumberFormatting.ratio(oldRatio)) target<=1.30")
            times.rows.append([
                fixture.kind.rawValue, measured(plain, in: measurements), measured(current, in: measurements),
                measured(old, in: measurements), NumberFormatting.ratio(currentRatio), NumberFormatting.ratio(oldRatio),
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
