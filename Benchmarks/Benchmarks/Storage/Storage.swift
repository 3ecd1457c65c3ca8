import Benchmark
import StorageWorkloads

/// Storage benchmarks for package-benchmark, named like `ratios` names them —
/// `dao.<context>.<operation> <variant>` and `files.<operation> <variant>` — so one comparison is
/// easy to select:
///
///     swift package --package-path Benchmarks benchmark --target Storage --filter "dao.memory.readAll.*"
///
/// These give distributions and allocation counts; `ratios` gives the interleaved ratios that the
/// performance targets are stated in.
///
/// Every benchmark gets a store of its own, filled and checked in `setup` (so neither is measured)
/// and, for files, removed in `teardown`: a store shared between benchmarks could not be removed
/// until the last of them, and the tool may exit without releasing it.
let benchmarks: @Sendable () -> Void = {
    let makers: [() -> StorageWorkloadSet] =
        DaoContextKind.allCases.map { kind in { DaoWorkloads.make(on: kind) } }
        + [{ FileWorkloads.make() }]
    for makeSet in makers {
        // Creating a set is cheap: its store is only filled when a benchmark's setup asks for it.
        for index in makeSet().workloads.indices {
            let set = makeSet()
            let workload = set.workloads[index]
            Benchmark(
                workload.name,
                configuration: .init(
                    // CPU time is left out: on Linux it is reported in 10 ms steps, useless per sample.
                    metrics: [.wallClock, .throughput, .mallocCountTotal],
                    // Operations range from microseconds (one record in memory) to a tenth of a second
                    // (ten thousand files): one operation per sample suits them all.
                    maxDuration: .seconds(1),
                    maxIterations: 1_000
                ),
                closure: { benchmark in
                    // The workload consumes each result itself (an opaque sink, like `blackHole`).
                    do {
                        try workload.run(benchmark.scaledIterations.count)
                    } catch {
                        benchmark.error("\(workload.name) threw \(error)")
                    }
                },
                // A wrong variant must fail the run, not produce numbers.
                setup: {
                    try set.prepare()
                    try set.verify()
                },
                teardown: { set.tearDown() }
            )
        }
    }
}
