import BenchmarkModels
import DAOKit
import DAOKitFileStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs one side of the query section's cold file-query target alone, for a profiler:
///
///     DAOKIT_COLD_PROFILE=cold|readall|scan|memory[:<n>[:<iterations>]] ratios
///
/// `cold` is a fresh `FileStorageContext`'s first screen query, `readall` its baseline (`read()`
/// and the query on the domain values), `scan` the scan it replaced (see
/// ``QueryTarget/coldFileQuery(at:messages:)``), each on the cached store of `n` messages (10,000
/// unless given; built first when missing, as the query section builds it), `iterations` times
/// (3 unless given) after one untimed run, so that a profile of two iteration counts differs by
/// that side's work alone. `memory` prints what the cold query keeps per record, as the growth of
/// the process's resident memory (`/proc/self/statm`, Linux): the context's cache after the
/// query, and, for comparison, the entities `fetchAll` returns.
enum ColdQueryProfile {
    static let variable = "DAOKIT_COLD_PROFILE"

    /// Runs the side `spec` names; returns the exit status.
    static func run(_ spec: String) -> Int32 {
        ProfileSpec.run(spec, variable: variable, sides: ["cold", "readall", "scan", "memory"], defaultIterations: 3) {
            spec in
            let cache = QueryStoreCache()
            let messages = SampleData.dialogMessages(count: spec.size)
            let location = try cache.store(named: "files-v\(QueryStores.dataVersion)-\(spec.size)") { scratch in
                try QueryStores.fill(try FileStorageContext(directory: scratch), with: messages)
            }
            let target = QueryTarget.coldFileQuery(at: location, messages: messages)
            let operation: (Int) throws -> [Int]
            switch spec.side {
            case "cold": operation = target.measured
            case "readall": operation = target.baselines[0].run
            case "scan": operation = target.baselines[1].run
            default: return printMemory(at: location, size: spec.size)  // "memory", the one side left
            }
            _ = try operation(0)
            for iteration in 0..<spec.iterations { _ = try operation(iteration % SampleData.dialogCount) }
            return 0
        }
    }

    /// Prints the resident bytes per record after a fresh context's first screen query, with
    /// the context kept, and after a `fetchAll` of the same records, with the entities kept.
    private static func printMemory(at location: URL, size: Int) -> Int32 {
        #if os(Linux)
            func held() -> Int {
                let fields =
                    (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
                return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
            }
            do {
                let before = held()
                let context = try FileStorageContext(directory: location)
                let dao = BaseDao<DialogMessage, DialogMessageEntity<DialogIndexed>>(context: context)
                _ = try dao.read(
                    where: ScreenQuery.predicate(dialog: 0), sortedBy: ScreenQuery.sortOrder,
                    limit: ScreenQuery.pageSize)
                let cached = held() - before
                let entitiesBefore = held()
                let entities = try FileStorageContext(directory: location).fetchAll(
                    DialogMessageEntity<DialogIndexed>.self)
                let decoded = held() - entitiesBefore
                print(
                    "cache after the first query: \(cached / size) bytes per record; fetchAll's entities: \(decoded / size) bytes per record"
                )
                withExtendedLifetime((dao, entities)) {}
                return 0
            } catch {
                FileHandle.standardError.write(Data("\(variable): \(error)\n".utf8))
                return 1
            }
        #else
            FileHandle.standardError.write(Data("\(variable)=memory needs Linux's /proc/self/statm\n".utf8))
            return 64
        #endif
    }
}
