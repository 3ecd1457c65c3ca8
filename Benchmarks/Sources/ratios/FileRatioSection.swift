import BenchmarkModels
import DAOKitFileStore
import StorageWorkloads

/// File storage: `BaseDao` over a `FileStorageContext` next to the same I/O done by hand (same
/// bytes, same files, same `fsync`s), on a store of 10,000 messages in a temporary directory under
/// `/tmp`, removed afterwards. Ends with the `RATIO` lines for single persists, reads and batches.
struct FileRatioSection: RatioSection {
    static let id = "files"

    /// Wall-clock time: a durable write's cost is mostly waiting for `fsync`, which CPU time would
    /// leave out (the reads, served from the page cache, compute instead; one clock serves both).
    /// Wall-clock time does count other processes' load on this shared machine, and an `fsync`
    /// takes anywhere from 0.2 to 10 ms depending on their disk traffic, so a batch holds many
    /// writes (150 ms, about 300 single persists or 5 batches) and the medians are taken over
    /// 25 rounds. A round of the 10 variants takes about 1.5 s (a read of 10,000 files is one
    /// operation of about 130 ms), so the section takes about 40 s, plus a few to fill the store.
    let defaultTimingPlan = TimingPlan(rounds: 25, batchDuration: .milliseconds(150), clock: .wallClock)

    private let workloadSet = FileWorkloads.make()

    var variants: [MeasuredVariant] {
        workloadSet.workloads.map { MeasuredVariant(name: $0.name, run: $0.run) }
    }

    func verify() throws {
        try workloadSet.prepare()
        try workloadSet.verify()
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        let count = SampleData.storedMessageCount
        let batchSize = FileWorkloads.batchSize
        func median(_ operation: FileOperation, _ variant: FileVariant) throws -> Double {
            try measurements.medianNanoseconds(FileWorkloads.name(operation, variant))
        }
        func measured(_ operation: FileOperation, _ variant: FileVariant) -> String {
            guard let summary = measurements.nanoseconds[FileWorkloads.name(operation, variant)] else { return "?" }
            return "\(NumberFormatting.duration(summary.median)) ±\(NumberFormatting.percent(summary.relativeSpread))"
        }
        func allocations(_ operation: FileOperation, _ variant: FileVariant) throws -> String {
            NumberFormatting.manyAllocations(
                try measurements.allocationsPerOperation(FileWorkloads.name(operation, variant)))
        }

        var times = TextTable(
            title:
                "File storage, \(count) messages in one directory: time per operation (\(plan.clock.rawValue), median"
                + " of \(plan.rounds) interleaved rounds; ± is the interquartile spread). raw is the same I/O by hand;"
                + " context is FileStorageContext's fetch/fetchAll alone, without BaseDao's mapping. persistOne and"
                + " readById are one message, \(FileOperation.batch.name) is \(batchSize), readAll all \(count).",
            header: [
                "operation", "dao", "context", "raw", "dao/raw", "context/raw", "dao per record",
                "allocs dao", "allocs context", "allocs raw",
            ])
        for operation in FileOperation.allCases {
            let perRecord =
                switch operation {
                case .persistOne, .readById: 1
                case .batch: batchSize
                case .readAll: count
                }
            let dao = try median(operation, .dao)
            let raw = try median(operation, .raw)
            let isRead = operation == .readById || operation == .readAll
            times.rows.append([
                operation.name,
                measured(operation, .dao),
                isRead ? measured(operation, .contextOnly) : "-",
                measured(operation, .raw),
                NumberFormatting.ratio(dao / raw),
                isRead ? NumberFormatting.ratio(try median(operation, .contextOnly) / raw) : "-",
                NumberFormatting.duration(dao / Double(perRecord)),
                try allocations(operation, .dao),
                isRead ? try allocations(operation, .contextOnly) : "-",
                try allocations(operation, .raw),
            ])
        }
        report.add(times)

        // Per record: a single persist is one record; a batch is `batchSize` records.
        let speedup = try median(.persistOne, .dao) / (median(.batch, .dao) / Double(batchSize))
        for operation in [FileOperation.persistOne, .readById, .readAll] {
            let ratio = try median(operation, .dao) / median(operation, .raw)
            report.addSummaryLine("RATIO \(operation.name) dao/raw=\(NumberFormatting.ratio(ratio))")
        }
        report.addSummaryLine("RATIO \(FileOperation.batch.name) speedup=\(NumberFormatting.ratio(speedup))")
    }
}
