import BenchmarkModels
import StorageWorkloads

/// DAO: `BaseDao<Message, MessageEntity>` next to the same work done by hand (the mapper and the
/// context called directly), for every operation on the in-memory and the key-value context, each
/// holding 10,000 messages; then where the time of `read()` goes. Ends with one `RATIO` line per
/// context and operation.
struct DaoRatioSection: RatioSection {
    static let id = "dao"

    /// Thread CPU time: both contexts only compute — the key-value context runs over an
    /// `InMemoryKeyValueStore`, and neither waits on I/O or on another thread — so CPU time is the
    /// fair measure, and it leaves out the time other processes on this shared machine take.
    /// Operations on all 10,000 messages take 15–80 ms, so their batches hold one to three of them;
    /// 15 rounds of the 32 variants take about 25 s of CPU time (more in wall-clock time when the
    /// machine is busy), rounds enough for spreads of a few percent.
    let defaultTimingPlan = TimingPlan(rounds: 15, batchDuration: .milliseconds(50), clock: .threadCPUTime)

    private let workloadSets = DaoContextKind.allCases.map { DaoWorkloads.make(on: $0) }

    var variants: [MeasuredVariant] {
        workloadSets.flatMap(\.workloads).map { MeasuredVariant(name: $0.name, run: $0.run) }
    }

    func verify() throws {
        for set in workloadSets {
            try set.prepare()
            try set.verify()
        }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        let count = SampleData.storedMessageCount
        var times = TextTable(
            title: "DAO over \(count) stored messages: time per operation (\(plan.clock.rawValue), median of"
                + " \(plan.rounds) interleaved rounds; ± is the interquartile spread). persistOne and readById are"
                + " one message; persistBatch, readAll and query are all \(count). Allocations per operation.",
            header: [
                "operation", "dao", "direct", "dao/direct", "direct+Predicate", "dao/(direct+Predicate)",
                "allocs dao", "allocs direct",
            ])
        var summary: [String] = []

        for context in DaoContextKind.allCases {
            for operation in DaoOperation.allCases {
                func name(_ variant: DaoVariant) -> String { DaoWorkloads.name(operation, on: context, variant) }
                let dao = try measurements.medianNanoseconds(name(.dao))
                let direct = try measurements.medianNanoseconds(name(.direct))
                let ratio = dao / direct
                // Only the query has the third variant: direct, but with Foundation's Predicate and
                // SortDescriptor, which tells their cost from BaseDao's. The RATIO line compares the
                // DAO with it: "the same work by hand" for a caller who has a Predicate and sort
                // descriptors, which is what read(where:sortedBy:) takes. The table keeps the
                // comparison with a hand-written filter and sort too, to show what Foundation's
                // query types cost.
                var summaryRatio = ratio
                var foundationQuery = ["-", "-"]
                if operation == .query {
                    let withPredicate = try measurements.medianNanoseconds(name(.directWithFoundationQuery))
                    summaryRatio = dao / withPredicate
                    foundationQuery = [
                        measured(name(.directWithFoundationQuery), in: measurements),
                        NumberFormatting.ratio(summaryRatio),
                    ]
                }
                times.rows.append(
                    [
                        operation.name(on: context),
                        measured(name(.dao), in: measurements),
                        measured(name(.direct), in: measurements),
                        NumberFormatting.ratio(ratio),
                    ] + foundationQuery + [
                        NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(name(.dao))),
                        NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(name(.direct))),
                    ])
                summary.append(
                    "RATIO \(operation.name(on: context)) dao/direct=\(NumberFormatting.ratio(summaryRatio))")
            }
        }

        var parts = TextTable(
            title: "Where read() of \(count) messages goes (\(plan.clock.rawValue), medians). fetchAll is the"
                + " context's own work; map to domain is what BaseDao adds; for keyValue, fetchAll splits into"
                + " store reads and JSON decode (the rest is the index, the lock and collecting results).",
            header: ["context", "read() dao"] + ReadAllPart.allCases.flatMap { [$0.rawValue, "%"] })
        for context in DaoContextKind.allCases {
            let whole = try measurements.medianNanoseconds(DaoWorkloads.name(.readAll, on: context, .dao))
            var row = [context.rawValue, NumberFormatting.duration(whole)]
            for part in ReadAllPart.allCases {
                guard ReadAllPart.measured(on: context).contains(part) else {
                    row += ["-", "-"]
                    continue
                }
                let time = try measurements.medianNanoseconds(DaoWorkloads.name(part, on: context))
                row += [NumberFormatting.duration(time), NumberFormatting.percent(time / whole)]
            }
            parts.rows.append(row)
        }

        let selected = QueryPart.selectionSize(ofStored: count)
        var query = TextTable(
            title: "The query's filter (\(count) messages) and sort (the \(selected) selected) on values in memory,"
                + " with Foundation's Predicate and SortDescriptor and by hand (\(plan.clock.rawValue), medians)",
            header: ["step", "Foundation", "by hand", "Foundation/by hand", "allocs Foundation", "allocs by hand"])
        for (foundation, byHand, step) in [
            (QueryPart.filterWithPredicate, QueryPart.filterByHand, "filter"),
            (.sortWithSortDescriptor, .sortByHand, "sort"),
        ] {
            let slow = try measurements.medianNanoseconds(foundation.name)
            let fast = try measurements.medianNanoseconds(byHand.name)
            query.rows.append([
                step, measured(foundation.name, in: measurements), measured(byHand.name, in: measurements),
                NumberFormatting.ratio(slow / fast),
                NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(foundation.name)),
                NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(byHand.name)),
            ])
        }

        report.add(times)
        report.add(query)
        report.add(parts)
        summary.forEach { report.addSummaryLine($0) }
    }

    private func measured(_ name: String, in measurements: VariantMeasurements) -> String {
        guard let summary = measurements.nanoseconds[name] else { return "?" }
        return "\(NumberFormatting.duration(summary.median)) ±\(NumberFormatting.percent(summary.relativeSpread))"
    }
}
