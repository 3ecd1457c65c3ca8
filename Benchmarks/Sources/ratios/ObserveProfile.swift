import Foundation

/// Runs one variant of the observe section's write cost alone, for a profiler:
///
///     DAOKIT_OBSERVE_PROFILE=<kind>.<observers>[:<n>[:<iterations>]] ratios
///
/// Kinds `memory`, `keyValue`, `file`; observers 0, 1 or 100 (see ``ObserveRatioSection``): a
/// context holding `n` messages (1,000 in the section; 10,000 unless given) with that many running
/// observations of queries the writes never match, then `iterations` persists of one message
/// (1,000 unless given) after one untimed persist. Under `valgrind --tool=callgrind
/// --separate-threads=yes` the main thread's totals at two iteration counts give one write's
/// instructions on the writer's thread; the other threads' totals are the observers' re-runs.
enum ObserveProfile {
    static let variable = "DAOKIT_OBSERVE_PROFILE"

    static let sides = ObserveRatioSection.ContextKind.allCases.flatMap { kind in
        ObserveRatioSection.observerCounts.map { "\(kind.rawValue).\($0)" }
    }

    /// Runs the side `spec` names; returns the exit status.
    static func run(_ spec: String) -> Int32 {
        ProfileSpec.run(spec, variable: variable, sides: sides, defaultIterations: 1_000) { spec in
            let parts = spec.side.split(separator: ".")
            guard let kind = ObserveRatioSection.ContextKind(rawValue: String(parts[0])), let observers = Int(parts[1])
            else { return 64 }
            let fixture = ObservedWriteFixture(kind: kind, observers: observers, stored: spec.size)
            try fixture.write(1)
            try fixture.write(spec.iterations)
            fixture.stopObserving()
            return 0
        }
    }
}
