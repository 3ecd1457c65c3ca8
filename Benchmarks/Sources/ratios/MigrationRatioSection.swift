import Foundation
import MappingWorkloads

/// `migrate()`: rewriting 100,000 tickets of an entity's first release at its version 3 against
/// reading them all and writing them all in one batch, on the key-value context over an
/// in-memory store and an SQLite file. Every operation first writes the first release's tickets
/// anew (one transaction); a third variant does only that, and each round's ratio is
/// (migrate − rewrite) / (read and batch − rewrite). Ends with
/// `RATIO migrations.<context> migrate/(read+batch)=<x>`.
struct MigrationRatioSection: RatioSection {
    static let id = "migrations"

    /// Few rounds: one operation takes seconds. Wall-clock time, the three sides of a context one
    /// after the other in every round.
    let defaultTimingPlan = TimingPlan(
        rounds: 5, batchDuration: .milliseconds(100), clock: .wallClock, keepsGroupsTogether: true)

    private static let kinds: [VersionContextKind] = [.keyValue, .sqlite]
    private let fixtures: [MigrationFixture]

    init() {
        do {
            fixtures = try Self.kinds.map(MigrationFixture.init(kind:))
        } catch {
            fatalError("migrations section: cannot create the stores: \(error)")
        }
    }

    static func name(_ kind: VersionContextKind, _ side: String) -> String {
        "migrations.\(kind.rawValue) \(side)"
    }

    var variants: [MeasuredVariant] {
        fixtures.flatMap { fixture in
            let group = fixture.kind.rawValue
            let sides: [(String, () throws -> Int)] = [
                ("rewrite", fixture.reseed), ("migrate", fixture.reseedAndMigrate),
                ("read+batch", fixture.reseedAndReadAndWrite),
            ]
            return sides.map { side, run in
                MeasuredVariant(
                    name: Self.name(fixture.kind, side),
                    run: { iterations in
                        for _ in 0..<iterations { consumeOpaquely(try run()) }
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
                "migrate() of \(MigrationFixture.count) tickets of version 1 to version 3 against reading them and"
                + " writing them in one batch; each operation first rewrites the version 1 tickets (rewrite), which"
                + " the ratio takes out of both sides (\(plan.clock.rawValue), median of \(plan.rounds) rounds).",
            header: ["context", "rewrite", "+ migrate", "+ read and batch", "migrate/(read+batch)"])
        var summary: [String] = []
        for fixture in fixtures {
            let rewrite = try sampled(Self.name(fixture.kind, "rewrite"), measurements)
            let migrate = try sampled(Self.name(fixture.kind, "migrate"), measurements)
            let batch = try sampled(Self.name(fixture.kind, "read+batch"), measurements)
            let ratios = zip(rewrite.samples, zip(migrate.samples, batch.samples)).map { base, pair in
                (pair.0 - base) / max(pair.1 - base, 1)
            }
            let ratio = TimingSummary.quantile(0.5, of: ratios)
            summary.append(
                "RATIO migrations.\(fixture.kind.rawValue) migrate/(read+batch)=\(NumberFormatting.ratio(ratio)) target<=1.50"
            )
            times.rows.append([
                fixture.kind.rawValue, NumberFormatting.duration(rewrite.median),
                NumberFormatting.duration(migrate.median), NumberFormatting.duration(batch.median),
                NumberFormatting.ratio(ratio),
            ])
        }
        report.add(times)
        summary.forEach { report.addSummaryLine($0) }
    }

    private func sampled(_ name: String, _ measurements: VariantMeasurements) throws -> TimingSummary {
        guard let summary = measurements.nanoseconds[name] else {
            throw MissingMeasurement(variant: name, kind: "timing")
        }
        return summary
    }
}
