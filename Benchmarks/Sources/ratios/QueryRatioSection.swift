import BenchmarkModels
import Foundation
import MappingWorkloads

/// Queries: the screen query (one dialog's unread messages, newest first, 20 of them) and its
/// `count(where:)` through `BaseDao` on every shipped context — in memory, key-value over an
/// `InMemoryKeyValueStore`, files — each with and without indexes, against GRDB (SQLite, index on
/// dialog and date) in memory and on disk, on 10,000 and 100,000 messages in 100 dialogs. Every
/// engine holds the same messages and gives the same answers (checked before timing). Ends with one
/// `RATIO query.<context>.<screen|count>.<n> dao/grdb=<x>` line per case: the memory and key-value
/// contexts divided by GRDB in memory, the file context by GRDB on disk.
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
    /// 5 rounds of the 32 variants take about 100 s while most queries still scan; counting
    /// allocations runs every variant at least 13 more times, about 4 minutes at 100,000 messages
    /// with scans, which is most of the section's run time.
    let defaultTimingPlan = TimingPlan(rounds: 5, batchDuration: .milliseconds(60), clock: .wallClock)

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

    var variants: [MeasuredVariant] {
        guard let stores = try? stores.get() else { return [] }
        return stores.flatMap { store in
            Operation.allCases.flatMap { operation in
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
                    throw QueryStoreError(description: "dialog \(dialog) has only \(screen.count) unread messages at \(store.size)")
                }
                for engine in store.engines {
                    let found = try engine.screen(dialog)
                    guard found == screen else {
                        throw QueryStoreError(description: "\(engine.name) at \(store.size): the screen of dialog \(dialog) is "
                            + "\(found.map(\.id)), expected \(screen.map(\.id))")
                    }
                    let counted = try engine.count(dialog)
                    guard counted == count else {
                        throw QueryStoreError(description: "\(engine.name) at \(store.size): dialog \(dialog) counts \(counted), expected \(count)")
                    }
                }
            }
        }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws {
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
                        NumberFormatting.duration(summaryOfTimes.median) + " ±" + NumberFormatting.percent(summaryOfTimes.relativeSpread),
                        NumberFormatting.ratio(summaryOfTimes.median / grdbMemory),
                        NumberFormatting.ratio(summaryOfTimes.median / grdbDisk),
                        NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(name)),
                    ])
                    guard !engine.name.hasPrefix("grdb") else { continue }
                    let baseline = try measurements.medianNanoseconds(Self.name(Self.baseline(of: engine.name), operation, store.size))
                    summary.append("RATIO query.\(engine.name).\(operation.rawValue).\(Self.sizeLabel(store.size))"
                        + " dao/grdb=\(NumberFormatting.ratio(summaryOfTimes.median / baseline))")
                }
            }
        }
        report.add(table)
        summary.forEach { report.addSummaryLine($0) }
    }
}
