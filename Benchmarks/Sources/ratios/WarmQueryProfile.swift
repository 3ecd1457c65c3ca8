import BenchmarkModels
import DAOKit
import Foundation

/// Runs the indexed in-memory context's screen query or count alone, for a profiler:
///
///     DAOKIT_WARM_PROFILE=screen|count[:<n>[:<iterations>]] ratios
///
/// On an `InMemoryStorageContext` holding `n` messages (10,000 unless given) with the entity that
/// declares two indexes, the query section's screen query (or its `count(where:)`) for the
/// dialogs ``DialogCycle`` names, `iterations` times (1,000 unless given) after one untimed
/// query. Under `valgrind --tool=callgrind` the difference of two iteration counts' totals over
/// the difference of the counts is one query's instructions, filling the store excluded.
enum WarmQueryProfile {
    static let variable = "DAOKIT_WARM_PROFILE"

    /// Runs the side `spec` names; returns the exit status.
    static func run(_ spec: String) -> Int32 {
        ProfileSpec.run(spec, variable: variable, sides: ["screen", "count"], defaultIterations: 1_000) { spec in
            let messages = SampleData.dialogMessages(count: spec.size)
            let dao = BaseDao<DialogMessage, DialogMessageEntity<DialogIndexed>>(context: InMemoryStorageContext())
            try dao.persist(messages)
            let dialogs = DialogCycle()
            let query: () throws -> Int =
                spec.side == "screen"
                ? {
                    try dao.read(
                        where: ScreenQuery.predicate(dialog: dialogs.advance()), sortedBy: ScreenQuery.sortOrder,
                        limit: ScreenQuery.pageSize
                    ).count
                }
                : { try dao.count(where: ScreenQuery.predicate(dialog: dialogs.advance())) }
            var sink = try query()
            for _ in 0..<spec.iterations { sink &+= try query() }
            return sink < 0 ? 1 : 0  // never: keeps the answers observed
        }
    }
}
