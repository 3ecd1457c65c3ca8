import Foundation

// Interleaved ratio measurements for DAOKit; see `RatioCommand` for what happens, in order.
//
//     swift run -c release --package-path Benchmarks ratios
// The cross-process writer of the `observe` section's latency measurement, run as a child.
if CommandLine.arguments.dropFirst().first == ObserveWriterChild.flag {
    exit(ObserveWriterChild.main(Array(CommandLine.arguments.dropFirst(2))))
}
// One side of the cold file-query target alone, for a profiler (see `ColdQueryProfile`).
if let spec = ProcessInfo.processInfo.environment[ColdQueryProfile.variable] {
    exit(ColdQueryProfile.run(spec))
}
// One side of the indexed-persist target alone, for a profiler (see `PersistProfile`).
if let spec = ProcessInfo.processInfo.environment[PersistProfile.variable] {
    exit(PersistProfile.run(spec))
}
// The indexed in-memory screen query or count alone, for a profiler (see `WarmQueryProfile`).
if let spec = ProcessInfo.processInfo.environment[WarmQueryProfile.variable] {
    exit(WarmQueryProfile.run(spec))
}
// One DAOKit side of a file-query or SQLite target alone, for a profiler (see `StoreProfile`).
if let spec = ProcessInfo.processInfo.environment[StoreProfile.variable] {
    exit(StoreProfile.run(spec))
}
// One variant of the observe section's write cost alone, for a profiler (see `ObserveProfile`).
if let spec = ProcessInfo.processInfo.environment[ObserveProfile.variable] {
    exit(ObserveProfile.run(spec))
}
// Any one variant of any section alone, for a profiler (see `VariantProfile`).
if let spec = ProcessInfo.processInfo.environment[VariantProfile.variable] {
    exit(VariantProfile.run(spec))
}
let status = RatioCommand(arguments: Array(CommandLine.arguments.dropFirst())).run()
exit(status.rawValue)
