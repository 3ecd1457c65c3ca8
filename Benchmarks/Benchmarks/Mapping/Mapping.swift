import Benchmark
import MappingWorkloads

/// Mapping benchmarks for package-benchmark: every model × direction × strategy, named like
/// `Message.p2e mapper`, so one comparison is easy to select:
///
///     swift package --package-path Benchmarks benchmark --filter "Message.p2e.*"
///
/// These give distributions and allocation counts per strategy; `ratios` gives the interleaved
/// ratios that the performance targets are stated in.
let benchmarks: @Sendable () -> Void = {
    for workload in MappingWorkload.catalog() {
        Benchmark(
            workload.name,
            configuration: .init(
                // CPU time is left out: on Linux it is reported in 10 ms steps, useless per sample.
                metrics: [.wallClock, .throughput, .mallocCountTotal],
                // A thousand conversions per sample: one flat conversion takes less time than the
                // bookkeeping of a sample. Metrics marked `*` are reported per conversion.
                scalingFactor: .kilo,
                maxDuration: .seconds(1),
                maxIterations: 1_000
            ),
            closure: { benchmark in
                // The workload consumes each result itself (an opaque sink, like `blackHole`) so no
                // conversion can be optimized away.
                do {
                    try workload.run(benchmark.scaledIterations.count)
                } catch {
                    benchmark.error("\(workload.name) threw \(error)")
                }
            },
            // A wrong conversion must fail the run, not produce numbers.
            setup: { try workload.verify() }
        )
    }
}
