import BenchmarkModels
import DAOKit
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
        let parts = spec.split(separator: ":").map(String.init)
        let size = parts.count > 1 ? Int(parts[1]) : 10_000
        let iterations = parts.count > 2 ? Int(parts[2]) : 3
        guard let size, let iterations, size > 0, iterations >= 0 else {
            FileHandle.standardError.write(Data("usage: \(variable)=cold|readall|scan|memory[:<n>[:<iterations>]]\n".utf8))
            return 64
        }
        do {
            let cache = QueryStoreCache()
            let messages = SampleData.dialogMessages(count: size)
            let location = try cache.store(named: "files-v\(QueryStores.dataVersion)-\(size)") { scratch in
                try QueryStores.fill(try FileStorageContext(directory: scratch), with: messages)
            }
            let target = QueryTarget.coldFileQuery(at: location, messages: messages)
            let operation: (Int) throws -> [Int]
            switch parts[0] {
            case "cold": operation = target.measured
            case "readall": operation = target.baselines[0].run
            case "scan": operation = target.baselines[1].run
            case "memory": return printMemory(at: location, size: size)
            default:
                FileHandle.standardError.write(Data("\(variable): unknown side \(parts[0])\n".utf8))
                return 64
            }
            _ = try operation(0)
            for iteration in 0..<iterations { _ = try operation(iteration % SampleData.dialogCount) }
            return 0
        } catch {
            FileHandle.standardError.write(Data("\(variable): \(error)\n".utf8))
            return 1
        }
    }

    /// Prints the resident bytes per record after a fresh context's first screen query, with
    /// the context kept, and after a `fetchAll` of the same records, with the entities kept.
    private static func printMemory(at location: URL, size: Int) -> Int32 {
        #if os(Linux)
        func held() -> Int {
            let fields = (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?.split(separator: " ") ?? []
            return fields.count > 1 ? (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
        }
        do {
            let before = held()
            let context = try FileStorageContext(directory: location)
            let dao = BaseDao<DialogMessage, DialogMessageEntity<DialogIndexed>>(context: context)
            _ = try dao.read(where: ScreenQuery.predicate(dialog: 0), sortedBy: ScreenQuery.sortOrder, limit: ScreenQuery.pageSize)
            let cached = held() - before
            let entitiesBefore = held()
            let entities = try FileStorageContext(directory: location).fetchAll(DialogMessageEntity<DialogIndexed>.self)
            let decoded = held() - entitiesBefore
            print("cache after the first query: \(cached / size) bytes per record; fetchAll's entities: \(decoded / size) bytes per record")
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
