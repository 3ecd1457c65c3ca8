import BenchmarkModels
import Foundation
import MappingWorkloads

/// Queries: the screen query (one dialog's unread messages, newest first, 20 of them) and its
/// `count(where:)` through `BaseDao` on every shipped context — in memory, key-value over an
/// `InMemoryKeyValueStore`, files — each with and without indexes, against GRDB (SQLite, index on
/// dialog and date) in memory and on disk, on 10,000 and 100,000 messages in 100 dialogs. Every
/// engine holds the same messages and gives the same answers (checked before timing). Ends with one
/// `RATIO query.<context>.<screen|count>.<n> dao/grdb=<x>` line per case: the memory and key-value
/// contexts divided by GRDB in memory, the file context by GRDB on disk; the indexed memory and file
/// contexts' lines carry their targets (`target<=0.5`, `target<=1.0`).
///
/// Then the targets measured against DAOKit itself (``QueryTarget``), one `RATIO` line each with
/// its target: the file context's first (cold) query against `read()` and the query applied to
/// the domain values (what it cost before this release; and, for information, against the scan of
/// entities it replaced), the key-value context's screen query (a scan) against the same
/// `read()` and query, a query on a computed property (which cannot be translated) against
/// `read()` and a filter, on the memory and file contexts, and `persist` with two indexes against
/// none. These are timed in thread CPU time (``targetClock``).
///
/// Options, as environment variables (the command line's options apply to every section):
/// - `DAOKIT_QUERY_SIZES`: the numbers of messages, comma-separated (default `10000,100000`);
///   `DAOKIT_QUERY_SIZES=10000` runs in seconds instead of minutes;
/// - `DAOKIT_QUERY_STORES`: where the file stores and GRDB's database files are kept between runs
///   (see ``QueryStoreCache``). The first run builds the 100,000-message file store, which takes a
///   few minutes (two hundred thousand durable file writes); later runs reuse it.
struct QueryRatioSection: RatioSection {
    static let id = "query"

    /// Wall-clock time: GRDB runs its reads on its own dispatch queue, whose thread thread CPU time
    /// would not see. A scan of 100,000 records takes about a second, an indexed query or GRDB's
    /// well under a millisecond, so a batch holds one slow operation or thousands of fast ones.
    /// The scans of 100,000 records (unindexed queries, the cold file query and its baseline, the
    /// untranslated queries) take most of the section's run time, and counting allocations runs
    /// every variant at least 13 more times.
    let defaultTimingPlan = TimingPlan(rounds: 5, batchDuration: .milliseconds(60), clock: .wallClock)

    /// The clock of the targets measured against DAOKit itself: thread CPU time, which counts the
    /// thread's system time too (reading the store's files, from the page cache after the first
    /// run). Both sides of a target do the same reads on one thread, so CPU time compares exactly
    /// their work, where wall-clock time on this shared machine mostly measures how long other
    /// processes kept the thread waiting for a core during the long (100,000-record) operations.
    static let targetClock = TimingClock.threadCPUTime

    enum Operation: String, CaseIterable {
        case screen, count
    }

    /// The numbers of messages, from `DAOKIT_QUERY_SIZES` or 10,000 and 100,000.
    static let sizes: [Int] = {
        let sizes = ProcessInfo.processInfo.environment["DAOKIT_QUERY_SIZES"]?
            .split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
        return sizes.flatMap { $0.isEmpty ? nil : $0 } ?? [10_000, 100_000]
    }()

    /// The denominator of each DAOKit engine's `RATIO` line: SQLite in the same kind of place.
    static func baseline(of engine: String) -> String {
        engine.hasPrefix("files") ? "grdb.disk" : "grdb.memory"
    }

    private let stores: Result<[QueryStores], any Error>

    init() {
        let cache = QueryStoreCache()
        stores = Result { try Self.sizes.map { try QueryStores(size: $0, cache: cache) } }
    }

    static func name(_ engine: String, _ operation: Operation, _ size: Int) -> String {
        "query.\(engine).\(operation.rawValue).\(sizeLabel(size))"
    }

    static func sizeLabel(_ size: Int) -> String {
        size % 1_000 == 0 ? "\(size / 1_000)k" : String(size)
    }

    /// The name of a target's variant (``QueryTarget/name`` or a baseline's) at `size`.
    static func name(_ variant: String, _ size: Int) -> String {
        "\(variant).\(sizeLabel(size))"
    }

    var variants: [MeasuredVariant] {
        guard let stores = try? stores.get() else { return [] }
        return stores.flatMap { store in
            let comparisons = Operation.allCases.flatMap { operation in
                store.engines.map { engine in
                    let dialogs = DialogCycle()
                    return MeasuredVariant(name: Self.name(engine.name, operation, store.size)) { iterations in
                        for _ in 0..<iterations {
                            switch operation {
                            case .screen: consumeOpaquely(try engine.screen(dialogs.advance()))
                            case .count: consumeOpaquely(try engine.count(dialogs.advance()))
                            }
                        }
                    }
                }
            }
            // Each target next to its baseline, so that both run under the same load.
            let targets = store.targets.flatMap { target in
                ([(target.name, target.measured)] + target.baselines.map { ($0.name, $0.run) }).map { name, operation in
                    let dialogs = DialogCycle()
                    return MeasuredVariant(
                        name: Self.name(name, store.size),
                        run: { iterations in
                            for _ in 0..<iterations { consumeOpaquely(try operation(dialogs.advance())) }
                        }, clock: Self.targetClock)
                }
            }
            return comparisons + targets
        }
    }

    /// Every engine's screen and count, for the first and the last dialog, equal the answer by hand.
    /// Two dialogs, because at 100,000 messages each check of a scanning engine takes a second.
    func verify() throws {
        for store in try stores.get() {
            for dialog in [0, SampleData.dialogCount - 1] {
                let screen = ScreenQuery.expectedScreen(store.messages, dialog: dialog)
                let count = ScreenQuery.expectedCount(store.messages, dialog: dialog)
                guard screen.count == ScreenQuery.pageSize else {
                    throw QueryStoreError(
                        description: "dialog \(dialog) has only \(screen.count) unread messages at \(store.size)")
                }
                for engine in store.engines {
                    let found = try engine.screen(dialog)
                    guard found == screen else {
                        throw QueryStoreError(
                            description: "\(engine.name) at \(store.size): the screen of dialog \(dialog) is "
                                + "\(found.map(\.id)), expected \(screen.map(\.id))")
                    }
                    let counted = try engine.count(dialog)
                    guard counted == count else {
                        throw QueryStoreError(
                            description:
                                "\(engine.name) at \(store.size): dialog \(dialog) counts \(counted), expected \(count)"
                        )
                    }
                }
            }
            for target in store.targets { try target.verify() }
        }
    }

    /// The most an engine's `dao/grdb` may be, for the engines the issue sets one for: the indexed
    /// memory context at half of GRDB in memory, the indexed file context (warm) at GRDB on disk.
    static func target(of engine: String) -> Double? {
        switch engine {
        case "memory.indexed": return 0.5
        case "files.indexed": return 1.0
        default: return nil
        }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        var table = TextTable(
            title: "Queries on n messages in \(SampleData.dialogCount) dialogs: the screen query (one dialog's unread"
                + " messages, newest first, \(ScreenQuery.pageSize) of them) and count(where:) of the same filter, through"
                + " BaseDao on each context (indexed: the entity declares (dialogID, date) and (isRead)) and with GRDB"
                + " (index on dialogID, date). Time per query (\(plan.clock.rawValue), median of \(plan.rounds) interleaved"
                + " rounds; ± is the interquartile spread).",
            header: ["engine", "query", "n", "time", "/ grdb memory", "/ grdb disk", "allocs"])
        var summary: [String] = []
        for store in try stores.get() {
            for operation in Operation.allCases {
                let grdbMemory = try measurements.medianNanoseconds(Self.name("grdb.memory", operation, store.size))
                let grdbDisk = try measurements.medianNanoseconds(Self.name("grdb.disk", operation, store.size))
                for engine in store.engines {
                    let name = Self.name(engine.name, operation, store.size)
                    guard let summaryOfTimes = measurements.nanoseconds[name] else {
                        throw MissingMeasurement(variant: name, kind: "timing")
                    }
                    table.rows.append([
                        engine.name, operation.rawValue, String(store.size),
                        NumberFormatting.duration(summaryOfTimes.median) + " ±"
                            + NumberFormatting.percent(summaryOfTimes.relativeSpread),
                        NumberFormatting.ratio(summaryOfTimes.median / grdbMemory),
                        NumberFormatting.ratio(summaryOfTimes.median / grdbDisk),
                        NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(name)),
                    ])
                    guard !engine.name.hasPrefix("grdb") else { continue }
                    let baseline = try measurements.medianNanoseconds(
                        Self.name(Self.baseline(of: engine.name), operation, store.size))
                    summary.append(
                        "RATIO query.\(engine.name).\(operation.rawValue).\(Self.sizeLabel(store.size))"
                            + " dao/grdb=\(NumberFormatting.ratio(summaryOfTimes.median / baseline))"
                            + (Self.target(of: engine.name).map { " target<=\(NumberFormatting.ratio($0))" } ?? ""))
                }
            }
        }
        report.add(table)
        report.add(try targetTable(measurements, timedWith: plan, summary: &summary))
        summary.forEach { report.addSummaryLine($0) }
    }

    /// The targets measured against DAOKit itself, and their `RATIO` lines.
    private func targetTable(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, summary: inout [String])
        throws -> TextTable
    {
        var table = TextTable(
            title: "Targets against DAOKit itself: the file context's first query (which builds its cache and indexes)"
                + " against read() and the query applied to the domain values (what the query cost before this release),"
                + " and against a fresh context's fetchAll and the query evaluated on the entities; the key-value context's"
                + " screen query (a scan) against read() and the query on the values; a query on a computed"
                + " property (not translatable) against read() and the predicate on the values; persist of one message"
                + " (flipping its read state) with two indexes against none, in memory. Time per operation"
                + " (\(Self.targetClock.rawValue), median of \(plan.rounds) interleaved rounds; ± is the interquartile spread).",
            header: ["target", "n", "measured", "baseline", "ratio", "target", "allocs", "allocs baseline"])
        for store in try stores.get() {
            for target in store.targets {
                let name = Self.name(target.name, store.size)
                guard let measured = measurements.nanoseconds[name] else {
                    throw MissingMeasurement(variant: name, kind: "timing")
                }
                for baseline in target.baselines {
                    let baselineName = Self.name(baseline.name, store.size)
                    guard let baselineTime = measurements.nanoseconds[baselineName] else {
                        throw MissingMeasurement(variant: baselineName, kind: "timing")
                    }
                    let ratio = NumberFormatting.ratio(measured.median / baselineTime.median)
                    let limit = baseline.limit.map(NumberFormatting.ratio)
                    table.rows.append([
                        "\(target.name) (\(baseline.label))", String(store.size),
                        NumberFormatting.duration(measured.median) + " ±"
                            + NumberFormatting.percent(measured.relativeSpread),
                        NumberFormatting.duration(baselineTime.median) + " ±"
                            + NumberFormatting.percent(baselineTime.relativeSpread),
                        ratio, limit.map { "≤ " + $0 } ?? "-",
                        NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(name)),
                        NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(baselineName)),
                    ])
                    summary.append("RATIO \(name) \(baseline.label)=\(ratio)" + (limit.map { " target<=\($0)" } ?? ""))
                }
            }
        }
        return table
    }
}
