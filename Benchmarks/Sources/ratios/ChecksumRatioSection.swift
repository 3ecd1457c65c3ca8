import BenchmarkModels
import DAOKit
@_spi(DAOKitBenchmarks) import DAOKitFileStore
@_spi(DAOKitBenchmarks) import DAOKitSQLite
import Foundation
import GRDB
import MappingWorkloads

/// What the record checksum costs: the same `BaseDao` work on two stores of the same 10,000
/// messages, one whose records carry their checksum (what this release writes, checked on every
/// read) and one whose records carry none — for the file context and for SQLite. Ends with
/// `RATIO checksum.<context>.<operation> checked/unchecked=<x>`.
///
/// The "unchecked" side is the honest "without": records exactly as releases before checksums
/// wrote them, which this release still reads, without checking. A file record is format version 1
/// (no seal: `{"entity":…,"formatVersion":1,"key":…}`), an SQLite row has a NULL
/// `daokit_checksum`; every other step — encoding, the files or the transaction, the `fsync`s,
/// decoding — is the same code. The unchecked stores are written through the contexts'
/// benchmarks-only `writingChecksums: false` (`@_spi(DAOKitBenchmarks)`), so persist compares
/// computing and storing the checksum against not computing it; their records are the checksum's
/// bytes shorter (a file's 25-byte seal; an SQLite row's integer). `verify()` checks that each
/// side's stored records are what it says.
///
/// `persist` is one batch of 1,000 messages replacing stored ones, alternating between two
/// versions of each message (its read state flipped), so that every write changes every record
/// (SQLite does not even write a row rewritten with identical bytes); `readAll` is `read()` of
/// all 10,000.
struct ChecksumRatioSection: RatioSection {
    static let id = "checksum"
    static let count = 10_000
    static let batchSize = 1_000

    /// Thread CPU time: the checksum is computation, and the work the thread does (its system
    /// calls included) is what it adds to; waiting for `fsync`, which the checksum does not
    /// change, is left out, so the ratio is the checksum's share of the work rather than of the
    /// wait. Each operation takes a few to a hundred milliseconds.
    ///
    /// The checked and unchecked sides of each operation are timed as a pair, one right after
    /// the other in every round, and the ratio is the median of the rounds' ratios: the kernel's
    /// share of a persist (file system journal, page writeback) varies by tens of percent over a
    /// run, far more than the checksum's few, and it varies alike for two batches side by side.
    /// Even so a round's ratio spreads by about ten percent, so the median needs many rounds to
    /// settle within a percent or two of the target's 5%: 81 rounds take under three minutes.
    let defaultTimingPlan = TimingPlan(
        rounds: 81, batchDuration: .milliseconds(250), clock: .threadCPUTime, keepsGroupsTogether: true)

    enum Context: String, CaseIterable {
        case files, sqlite
    }

    enum Operation: String, CaseIterable {
        case persist, readAll
    }

    private let messages: [Message]
    /// Holds the four stores; removed with them when the section is released.
    private let directory: ScratchDirectory
    private let stores: [Store]

    init() {
        let messages = SampleData.messages(count: Self.count)
        // Each batch with every message's read state flipped, then as stored: persist writes them
        // in turn, so every write changes what it replaces.
        let flipped = messages.map { message in
            var changed = message
            changed.isRead.toggle()
            return changed
        }
        let batches = [flipped, messages].flatMap { version in
            stride(from: 0, to: version.count, by: Self.batchSize).map {
                Array(version[$0..<min($0 + Self.batchSize, version.count)])
            }
        }
        do {
            let directory = try ScratchDirectory()
            stores = try Context.allCases.flatMap { context in
                try [true, false].map { checked in
                    try Store(
                        context: context, checked: checked, in: directory.url, messages: messages, batches: batches)
                }
            }
            self.directory = directory
        } catch {
            fatalError("checksum section: cannot create the stores: \(error)")
        }
        self.messages = messages
    }

    static func name(_ context: Context, _ operation: Operation, checked: Bool) -> String {
        "checksum.\(context.rawValue).\(operation.rawValue) \(checked ? "checked" : "unchecked")"
    }

    /// In pairs (see ``defaultTimingPlan``): each operation of each context, checked and unchecked.
    var variants: [MeasuredVariant] {
        Context.allCases.flatMap { context in
            Operation.allCases.flatMap { operation in
                stores.filter { $0.context == context }.map { store in
                    MeasuredVariant(
                        name: Self.name(context, operation, checked: store.checked),
                        run: { iterations in
                            for _ in 0..<iterations { consumeOpaquely(try store.run(operation)) }
                        }, group: "\(context.rawValue).\(operation.rawValue)")
                }
            }
        }
    }

    func verify() throws {
        let expected = messages.sorted { $0.id < $1.id }
        for store in stores {
            guard try store.readAll().sorted(by: { $0.id < $1.id }) == expected else {
                throw SectionFailure(
                    description: "checksum section: \(store.label) does not read back what was stored")
            }
            try store.checkRecordsCarryChecksums(expecting: store.checked, probe: messages[Self.count / 2])
        }
    }

    func report(_ measurements: VariantMeasurements, timedWith plan: TimingPlan, into report: inout RatioReport) throws
    {
        var times = TextTable(
            title:
                "Record checksums: the same BaseDao work on \(Self.count) messages whose records carry their checksum"
                + " (checked) or none, as written before checksums (unchecked: file format version 1, SQLite rows"
                + " with a NULL daokit_checksum) (\(plan.clock.rawValue), median of \(plan.rounds) interleaved"
                + " rounds; ± is the interquartile spread; checked/unchecked is the median of the rounds' ratios,"
                + " the two sides timed side by side). persist is one batch of \(Self.batchSize) replacing"
                + " stored messages with changed ones; readAll reads all \(Self.count).",
            header: [
                "context", "operation", "checked", "unchecked", "checked/unchecked", "allocs checked",
                "allocs unchecked",
            ])
        var summary: [String] = []
        for context in Context.allCases {
            for operation in Operation.allCases {
                let checked = Self.name(context, operation, checked: true)
                let unchecked = Self.name(context, operation, checked: false)
                let (ratio, spread) = try measurements.pairedRatio(checked, unchecked)
                times.rows.append([
                    context.rawValue, operation.rawValue, measured(checked, in: measurements),
                    measured(unchecked, in: measurements),
                    "\(NumberFormatting.ratio(ratio)) ±\(NumberFormatting.percent(spread))",
                    NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(checked)),
                    NumberFormatting.manyAllocations(try measurements.allocationsPerOperation(unchecked)),
                ])
                summary.append(
                    "RATIO checksum.\(context.rawValue).\(operation.rawValue) checked/unchecked="
                        + "\(NumberFormatting.ratio(ratio)) target<=1.05")
            }
        }
        report.add(times)
        summary.forEach { report.addSummaryLine($0) }
    }

    private func measured(_ name: String, in measurements: VariantMeasurements) -> String {
        guard let summary = measurements.nanoseconds[name] else { return "?" }
        return "\(NumberFormatting.duration(summary.median)) ±\(NumberFormatting.percent(summary.relativeSpread))"
    }
}

extension ChecksumRatioSection {
    /// One store of the section: a file store or an SQLite database, written with or without
    /// checksums, with its `BaseDao`.
    final class Store {
        let context: Context
        let checked: Bool
        let batches: [[Message]]
        private let files: BaseDao<Message, MessageEntity>?
        private let fileContext: FileStorageContext?
        private let sqlite: BaseDao<Message, SQLiteMessageEntity>?
        private let databaseFile: URL?
        /// The next batch `persist` writes: each in turn, so that every record is rewritten, every
        /// time with the other version of it.
        private var cursor = 0

        var label: String { "the \(checked ? "checked" : "unchecked") \(context.rawValue) store" }

        /// Creates the store and writes `messages` into it in one batch: here rather than in
        /// `verify()`, because the process that counts allocations runs the variants without it.
        init(context: Context, checked: Bool, in directory: URL, messages: [Message], batches: [[Message]]) throws {
            self.context = context
            self.checked = checked
            self.batches = batches
            let name = "\(context.rawValue)-\(checked ? "checked" : "unchecked")"
            switch context {
            case .files:
                let store = try FileStorageContext(
                    directory: directory.appendingPathComponent(name), writingChecksums: checked)
                fileContext = store
                files = BaseDao(context: store)
                sqlite = nil
                databaseFile = nil
            case .sqlite:
                let file = directory.appendingPathComponent("\(name).sqlite")
                databaseFile = file
                sqlite = BaseDao(context: try SQLiteStorageContext(file: file, writingChecksums: checked))
                files = nil
                fileContext = nil
            }
            if let files { try files.persist(messages) }
            if let sqlite { try sqlite.persist(messages) }
        }

        func readAll() throws -> [Message] {
            if let files { return try files.read() }
            return try sqlite!.read()
        }

        /// One operation; returns something derived from its result, for the sink.
        func run(_ operation: Operation) throws -> Int {
            switch operation {
            case .persist:
                let batch = batches[cursor]
                cursor = (cursor + 1) % batches.count
                if let files { try files.persist(batch) }
                if let sqlite { try sqlite.persist(batch) }
                return batch.count
            case .readAll:
                return try readAll().count
            }
        }

        /// Throws unless the stored records carry a checksum exactly when `expecting` says: the
        /// record file of `probe` begins with its seal (version 2) or is version 1; the database
        /// has no row without a checksum, or no row with one.
        func checkRecordsCarryChecksums(expecting: Bool, probe: Message) throws {
            if let fileContext {
                let bytes = try Data(contentsOf: fileContext.fileURL(for: MessageEntity.self, id: probe.id))
                let sealed = bytes.starts(with: Data(#"{"checksum":""#.utf8))
                let versionOne = bytes.range(of: Data(#""formatVersion":1,"#.utf8)) != nil
                guard sealed == expecting, versionOne != expecting else {
                    throw SectionFailure(
                        description:
                            "checksum section: \(label) wrote \(String(decoding: bytes.prefix(60), as: UTF8.self))…")
                }
            }
            if let databaseFile {
                var configuration = Configuration()
                configuration.readonly = true
                // NOT INDEXED: the table's other indexes use DAOKit's collation, unknown to GRDB.
                let (withChecksum, without) = try DatabaseQueue(path: databaseFile.path, configuration: configuration)
                    .read { db in
                        (
                            try Int.fetchOne(
                                db,
                                sql: #"SELECT count(*) FROM "Message" NOT INDEXED WHERE daokit_checksum IS NOT NULL"#)
                                ?? -1,
                            try Int.fetchOne(
                                db, sql: #"SELECT count(*) FROM "Message" NOT INDEXED WHERE daokit_checksum IS NULL"#)
                                ?? -1
                        )
                    }
                guard (expecting ? without : withChecksum) == 0, (expecting ? withChecksum : without) > 0 else {
                    throw SectionFailure(
                        description:
                            "checksum section: \(label) has \(withChecksum) rows with a checksum and \(without) without"
                    )
                }
            }
        }
    }
}

/// The section's directory under the system's temporary directory, removed with everything in it
/// when released.
private final class ScratchDirectory {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
        "daokit-checksum-ratios-\(UUID().uuidString)")

    init() throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}
