import BenchmarkModels
import DAOKit
import DAOKitFileStore
import Foundation
import StorageWorkloads

/// Runs one DAOKit side of a file-query or SQLite target alone, for a profiler:
///
///     DAOKIT_STORE_PROFILE=<side>[:<n>[:<iterations>]] ratios
///
/// Sides: `files.count`, `files.screen`, `files.indexed.count`, `files.indexed.screen` (the query
/// section's warm queries on its cached file store of `n` messages, 10,000 unless given),
/// `sqlite.readAll`, `sqlite.screen`, `sqlite.readById`, `sqlite.count`, `sqlite.batchInsert`,
/// `sqlite.persistOne` (the sqlite section's operations on `n` messages), `sqlite.readAll.unchecked`
/// (`sqlite.readAll` on rows stored without checksums, as the checksum section's unchecked side),
/// `files.persistOne` and
/// `files.persistOne.raw` (the files section's single persist through `BaseDao`, and its raw
/// baseline, on a new store of `n` messages). Each runs `iterations`
/// times (100 unless given) after one untimed run. Under `valgrind --tool=callgrind` the
/// difference of two iteration counts' totals over the difference of the counts is one
/// operation's instructions, the set-up excluded.
enum StoreProfile {
    static let variable = "DAOKIT_STORE_PROFILE"

    static let fileSides = ["files.count", "files.screen", "files.indexed.count", "files.indexed.screen"]
    static let sqliteSides = SQLiteOperation.allCases.map { "sqlite.\($0.rawValue)" } + ["sqlite.readAll.unchecked"]
    static let persistSides = ["files.persistOne", "files.persistOne.raw"]

    /// Runs the side `spec` names; returns the exit status.
    static func run(_ spec: String) -> Int32 {
        ProfileSpec.run(spec, variable: variable, sides: fileSides + sqliteSides + persistSides, defaultIterations: 100)
        { spec in
            let operation: (Int) throws -> Int
            if spec.side.hasPrefix("sqlite.") {
                let unchecked = spec.side.hasSuffix(".unchecked")
                let fixture = try SQLiteFixture(count: spec.size, writingChecksums: !unchecked)
                try fixture.fill()
                let name = spec.side.dropFirst("sqlite.".count).split(separator: ".")[0]
                let kind = SQLiteOperation(rawValue: String(name))!
                operation = { _ in try fixture.runDAO(kind) }
                var sink = try operation(0)
                for iteration in 0..<spec.iterations { sink &+= try operation(iteration) }
                return sink == Int.min ? 1 : 0  // never: keeps the answers observed
            }
            if persistSides.contains(spec.side) {
                let set = FileWorkloads.make(messageCount: spec.size)
                defer { set.tearDown() }
                try set.prepare()
                let name = FileWorkloads.name(.persistOne, spec.side.hasSuffix(".raw") ? .raw : .dao)
                guard let workload = set.workloads.first(where: { $0.name == name }) else { return 1 }
                try workload.run(1)
                try workload.run(spec.iterations)
                return 0
            }
            let cache = QueryStoreCache()
            let messages = SampleData.dialogMessages(count: spec.size)
            let location = try cache.store(named: "files-v\(QueryStores.dataVersion)-\(spec.size)") { scratch in
                try QueryStores.fill(try FileStorageContext(directory: scratch), with: messages)
            }
            let files = try FileStorageContext(directory: location)
            let engine =
                spec.side.hasPrefix("files.indexed")
                ? QueryEngine.dao("files.indexed", files, indexing: DialogIndexed.self)
                : QueryEngine.dao("files", files, indexing: Unindexed.self)
            let dialogs = DialogCycle()
            operation =
                spec.side.hasSuffix(".count")
                ? { _ in try engine.count(dialogs.advance()) } : { _ in try engine.screen(dialogs.advance()).count }
            var sink = try operation(0)
            for iteration in 0..<spec.iterations { sink &+= try operation(iteration) }
            return sink == Int.min ? 1 : 0  // never: keeps the answers observed
        }
    }
}
