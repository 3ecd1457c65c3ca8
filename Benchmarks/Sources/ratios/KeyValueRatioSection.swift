import BenchmarkModels
import DAOKit
import Foundation

/// Key-value storage scaling: `BaseDao.persist(_:)` of one batch of n messages into an empty
/// `KeyValueStorageContext`, over an `InMemoryKeyValueStore` (1k, 10k, 50k) and over a
/// `UserDefaults` suite (1k, 10k). A context that does O(n) store operations per batch keeps the
/// time per record flat as n grows; the `RATIO` lines divide it by the time per record at 1k.
struct KeyValueRatioSection: RatioSection {
    static let id = "keyvalue"

    /// Wall-clock time: the `UserDefaults` variants write the suite's property list
    /// (`synchronize()` on Linux, every 1,000 writes and at the end), which CPU time would leave
    /// out. The largest batches take about a second, so a round times each variant once or twice;
    /// the medians are taken over 7 rounds, about 30 s, plus the allocation counts (a minute or two).
    let defaultTimingPlan = TimingPlan(rounds: 7, batchDuration: .milliseconds(300), clock: .wallClock)

    /// The batch sizes, by store.
    static let memorySizes = [1_000, 10_000, 50_000]
    static let userDefaultsSizes = [1_000, 10_000]

    enum Store: String {
        case memory
        case userDefaults
    }

    private let messages = SampleData.messages(count: memorySizes.max()!)

    static func name(_ store: Store, _ size: Int) -> String {
        "keyValue.persistBatch.\(store.rawValue).\(size / 1_000)k"
    }

    var variants: [MeasuredVariant] {
        Self.memorySizes.map { variant(.memory, $0) } + Self.userDefaultsSizes.map { variant(.userDefaults, $0) }
    }

    private func variant(_ store: Store, _ size: Int) -> MeasuredVariant {
        let batch = Array(messages.prefix(size))
        return MeasuredVariant(name: Self.name(store, size)) { iterations in
            for _ in 0..<iterations {
                try Self.persistIntoEmptyStore(batch, store) { _ in }
            }
        }
    }

    /// Persists `batch` as one batch into a new, empty store, hands the DAO to `inspect`, then
    /// removes what the store wrote to disk (for `UserDefaults`).
    private static func persistIntoEmptyStore(
        _ batch: [Message], _ store: Store, inspect: (BaseDao<Message, MessageEntity>) throws -> Void
    ) throws {
        switch store {
        case .memory:
            let dao = BaseDao<Message, MessageEntity>(context: KeyValueStorageContext(store: InMemoryKeyValueStore()))
            try dao.persist(batch)
            try inspect(dao)
        case .userDefaults:
            let suiteName = "daokit.ratios.\(UUID().uuidString)"
            guard let defaults = UserDefaults(suiteName: suiteName) else {
                throw SectionFailure(description: "UserDefaults refused the suite \(suiteName)")
            }
            defer { removeSuite(suiteName, defaults) }
            let dao = BaseDao<Message, MessageEntity>(context: KeyValueStorageContext(store: defaults))
            try dao.persist(batch)
            try inspect(dao)
        }
    }

    /// Removes a suite the benchmark wrote. `removePersistentDomain` is not used off Apple
    /// platforms: swift-corelibs-foundation takes 4 s to empty a suite of 10,000 keys (it marks
    /// every key changed, and each mark scans the marks before it), which would swamp the
    /// persist being timed. Deleting the property list is instant; what the process still holds of
    /// the suite in memory goes when it exits.
    private static func removeSuite(_ suiteName: String, _ defaults: UserDefaults) {
        #if canImport(Darwin)
            defaults.removePersistentDomain(forName: suiteName)
        #else
            let configHome =
                ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].map { URL(fileURLWithPath: $0) }
                ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".config")
            try? FileManager.default.removeItem(at: configHome.appendingPathComponent("\(suiteName).plist"))
        #endif
    }

    func verify() throws {
        let batch = Array(messages.prefix(Self.memorySizes.min()!))
        for store in [Store.memory, .userDefaults] {
            try Self.persistIntoEmptyStore(batch, store) { dao in
                let count = try dao.count()
                guard count == batch.count else {
                    throw SectionFailure(
                        description: "\(store): \(count) messages stored after persisting \(batch.count)")
                }
                let last = batch[batch.count - 1]
                guard try dao.read(id: last.id) == last else {
                    throw SectionFailure(description: "\(store): message \(last.id) does not read back equal")
                }
            }
        }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        var table = TextTable(
            title: "Key-value storage: BaseDao.persist of one batch of n messages into an empty KeyValueStorageContext"
                + " (\(plan.clock.rawValue), median of \(plan.rounds) interleaved rounds; ± is the interquartile spread).",
            header: ["store", "n", "batch", "per record", "per record / at 1k", "allocs per record"])
        var summary: [String] = []
        for (store, sizes) in [(Store.memory, Self.memorySizes), (.userDefaults, Self.userDefaultsSizes)] {
            let baseline = try measurements.medianNanoseconds(Self.name(store, 1_000)) / 1_000
            for size in sizes {
                let name = Self.name(store, size)
                let perRecord = try measurements.medianNanoseconds(name) / Double(size)
                let spread =
                    measurements.nanoseconds[name].map { " ±" + NumberFormatting.percent($0.relativeSpread) } ?? ""
                let ratio = NumberFormatting.ratio(perRecord / baseline)
                table.rows.append([
                    store.rawValue, String(size),
                    NumberFormatting.duration(perRecord * Double(size)) + spread,
                    NumberFormatting.duration(perRecord), ratio,
                    NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(name) / Double(size)),
                ])
                let label = store == .memory ? "\(size / 1_000)k" : "userDefaults.\(size / 1_000)k"
                summary.append("RATIO keyValue.persistBatch.\(label) per-record(n)/per-record(1k)=\(ratio)")
            }
        }
        report.add(table)
        summary.forEach { report.addSummaryLine($0) }
    }
}
