import MappingWorkloads

/// Mapping: the hand-written translators, `EntityMapper`, JSON and binary plist, for each model and
/// direction. Ends the report with the `RATIO` lines the performance targets are stated in.
struct MappingRatioSection: RatioSection {
    static let id = "mapping"

    /// About 30 s of CPU time for the 24 variants (25 rounds × 24 × 50 ms), leaving room in the
    /// 3-minute budget for the sections that follow. Batches of 50 ms make timer overhead
    /// irrelevant; mapping only computes, so CPU time is the fair and noise-resistant measure.
    let defaultTimingPlan = TimingPlan(rounds: 25, batchDuration: .milliseconds(50), clock: .threadCPUTime)

    private let workloads = MappingWorkload.catalog()

    var variants: [MeasuredVariant] {
        workloads.map { MeasuredVariant(name: $0.name, run: $0.run) }
    }

    func verify() throws {
        for workload in workloads {
            try workload.verify()
        }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        let strategies = ConversionStrategy.allCases
        var times = TextTable(
            title:
                "Mapping: nanoseconds per operation (\(plan.clock.rawValue), median of \(plan.rounds) interleaved rounds;"
                + " ± is the interquartile spread)",
            header: ["operation"] + strategies.map(\.rawValue))
        var ratios = TextTable(
            title: "Mapping: ratios of medians, and heap allocations per operation",
            header: ["operation", "mapper/manual", "json/mapper", "plist/mapper"]
                + strategies.map { "allocs \($0.rawValue)" })

        for model in BenchmarkedModel.allCases {
            for direction in MappingDirection.allCases {
                let operation = "\(model.rawValue).\(direction.rawValue)"
                func name(_ strategy: ConversionStrategy) -> String { "\(operation) \(strategy.rawValue)" }
                func median(_ strategy: ConversionStrategy) throws -> Double {
                    try measurements.medianNanoseconds(name(strategy))
                }
                func allocations(_ strategy: ConversionStrategy) throws -> Double {
                    try measurements.allocationsPerOperation(name(strategy))
                }

                times.rows.append(
                    try [operation]
                        + strategies.map { strategy in
                            let summary = measurements.nanoseconds[name(strategy)]
                            let median = try median(strategy)
                            let spread = summary.map { NumberFormatting.percent($0.relativeSpread) } ?? "?"
                            return "\(NumberFormatting.nanoseconds(median)) ±\(spread)"
                        })

                let mapperOverManual = try median(.mapper) / median(.manual)
                let jsonOverMapper = try median(.json) / median(.mapper)
                let plistOverMapper = try median(.plist) / median(.mapper)
                ratios.rows.append(
                    try [
                        operation,
                        NumberFormatting.ratio(mapperOverManual),
                        NumberFormatting.ratio(jsonOverMapper),
                        NumberFormatting.ratio(plistOverMapper),
                    ] + strategies.map { NumberFormatting.allocations(try allocations($0)) })

                let extraAllocations = try allocations(.mapper) - allocations(.manual)
                report.addSummaryLine(
                    "RATIO \(operation) mapper/manual=\(NumberFormatting.ratio(mapperOverManual))"
                        + " json/mapper=\(NumberFormatting.ratio(jsonOverMapper))"
                        + " allocs=\(Int(extraAllocations.rounded()))")
            }
        }
        report.add(times)
        report.add(ratios)
    }
}
