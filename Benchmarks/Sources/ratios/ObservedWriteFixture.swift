import BenchmarkModels
import DAOKit
import DAOKitFileStore
import Foundation
import MappingWorkloads

/// A context holding some messages, a DAO writing into it, and a number of running observations
/// of queries the writes never match, consumed by tasks on the cooperative pool.
final class ObservedWriteFixture {
    let dao: BaseDao<Message, MessageEntity>
    private let directory: BenchmarkDirectory?
    private var consumers: [Task<Void, Never>] = []
    private let stored: [Message]
    private var next = 0

    init(kind: ObserveRatioSection.ContextKind, observers: Int, stored count: Int) {
        let context: any StorageContext
        switch kind {
        case .memory:
            directory = nil
            context = InMemoryStorageContext()
        case .keyValue:
            directory = nil
            context = KeyValueStorageContext(store: InMemoryKeyValueStore())
        case .file:
            let directory = try! BenchmarkDirectory(prefix: "daokit-observe")
            self.directory = directory
            context = try! FileStorageContext(directory: URL(fileURLWithPath: directory.path))
        }
        dao = BaseDao(context: context)
        stored = SampleData.messages(count: count)
        try! dao.persist(stored)
        for index in 0..<observers {
            let sender = -1 - index
            let stream = dao.observe(
                where: #Predicate { $0.senderId == sender }, sortedBy: [SortDescriptor(\.date)], limit: 20)
            consumers.append(Task { do { for try await page in stream { consumeOpaquely(page) } } catch {} })
        }
    }

    deinit {
        stopObserving()
    }

    /// Ends every observation (their consumers' tasks are cancelled), so that later measurements
    /// do not share DAOKit's threads with re-runs still queued.
    func stopObserving() {
        for consumer in consumers { consumer.cancel() }
        consumers = []
    }

    /// Rewrites stored messages one by one, each with new text.
    func write(_ iterations: Int) throws {
        for _ in 0..<iterations {
            var message = stored[next % stored.count]
            message.text = "edit \(next)"
            next += 1
            try dao.persist(message)
        }
    }

    /// The writes land, and none is visible to the observed queries.
    func verify() throws {
        try write(1)
        let message = stored[(next - 1) % stored.count]
        guard try dao.read(id: message.id)?.text == "edit \(next - 1)" else {
            throw ObserveBenchmarkFailure("a write did not land")
        }
        guard try dao.count(where: #Predicate { $0.senderId < 0 }) == 0 else {
            throw ObserveBenchmarkFailure("an observed query matches")
        }
    }
}

/// The same writes as the timed variants, timed on the wall clock (interleaved, medians of 7).
enum ObservedWriteWallClock {
    static func measure(
        _ fixtures: [String: ObservedWriteFixture], kinds: [ObserveRatioSection.ContextKind], counts: [Int]
    ) throws -> [String: Double] {
        var samples: [String: [Double]] = [:]
        for _ in 0..<7 {
            for kind in kinds {
                for count in counts {
                    let name = ObserveRatioSection.name(kind, count)
                    let writes = kind == .file ? 20 : 500
                    let start = MonotonicTime.nanoseconds()
                    try fixtures[name]!.write(writes)
                    samples[name, default: []].append(Double(MonotonicTime.nanoseconds() - start) / Double(writes))
                }
            }
        }
        return samples.mapValues { $0.sorted()[$0.count / 2] }
    }
}

struct ObserveBenchmarkFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `CLOCK_MONOTONIC` in nanoseconds: one clock for every process on the machine, so a child's
/// commit time and the parent's delivery time can be subtracted.
enum MonotonicTime {
    static func nanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}

/// A directory of its own under the temporary directory, removed when released.
final class BenchmarkDirectory {
    let path: String

    init(prefix: String) throws {
        var template = Array((FileManager.default.temporaryDirectory.path + "/" + prefix + ".XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw ObserveBenchmarkFailure("mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
