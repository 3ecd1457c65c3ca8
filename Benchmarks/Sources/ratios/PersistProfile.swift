import BenchmarkModels
import Foundation

/// Runs one side of the query section's indexed-persist target alone, for a profiler:
///
///     DAOKIT_PERSIST_PROFILE=indexed|plain[:<n>[:<iterations>]] ratios
///
/// `indexed` is `persist` of one message with the entity that declares two indexes, `plain` the
/// same with the one that declares none (see ``QueryTarget/indexedPersist(messages:)``), on an
/// `InMemoryStorageContext` holding `n` messages of each (10,000 unless given), `iterations` times
/// (10,000 unless given) after one untimed persist. Under `valgrind --tool=callgrind` the
/// difference of two iteration counts' totals over the difference of the counts is one persist's
/// instructions, start-up and filling excluded.
enum PersistProfile {
    static let variable = "DAOKIT_PERSIST_PROFILE"

    /// Runs the side `spec` names; returns the exit status.
    static func run(_ spec: String) -> Int32 {
        ProfileSpec.run(spec, variable: variable, sides: ["indexed", "plain"], defaultIterations: 10_000) { spec in
            let target = try QueryTarget.indexedPersist(messages: SampleData.dialogMessages(count: spec.size))
            let operation = spec.side == "indexed" ? target.measured : target.baselines[0].run
            _ = try operation(0)
            for iteration in 0..<spec.iterations { _ = try operation(iteration) }
            return 0
        }
    }
}
