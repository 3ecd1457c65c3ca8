import BenchmarkModels
import DAOKit
import DAOKitFileStore
import Foundation

/// Commit → delivery latency of observations, in-process and cross-process.
enum ObserveLatency {
    struct Run {
        let name: String
        let writes: Int
        /// Nanoseconds from the write returning, one per delivered write.
        let samples: [Double]
        /// Nanoseconds from the write being called (in-process only).
        var fromCall: [Double] = []

        var median: Double { Self.percentile(samples, 0.5) }
        var p99: Double { Self.percentile(samples, 0.99) }
        var medianFromCall: Double { Self.percentile(fromCall, 0.5) }
        var p99FromCall: Double { Self.percentile(fromCall, 0.99) }

        private static func percentile(_ samples: [Double], _ fraction: Double) -> Double {
            guard !samples.isEmpty else { return .nan }
            let sorted = samples.sorted()
            return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * fraction).rounded(.up)))]
        }
    }

    static func measureAll() throws -> [Run] {
        let memory = try inProcess(name: "memory.inProcess", context: InMemoryStorageContext(), writes: 500)
        let directory = try BenchmarkDirectory(prefix: "daokit-latency")
        let file = try inProcess(
            name: "file.inProcess", context: try FileStorageContext(directory: URL(fileURLWithPath: directory.path)),
            writes: 200)
        let crossProcess = try crossProcess(writes: 60)
        return [memory, file, crossProcess]
    }

    /// Stores the probe message (its text is its generation, 0) and observes it by id, logging the
    /// generation of each delivered value; returns once the first element (generation 0) arrived.
    /// The caller cancels the consumer.
    static func observedProbe(
        _ dao: BaseDao<Message, MessageEntity>, name: String
    ) throws -> (probe: Message, arrivals: ArrivalLog, consumer: Task<Void, Never>) {
        var probe = SampleData.makeMessage(index: 1)
        probe.text = "0"
        try dao.persist(probe)
        let arrivals = ArrivalLog()
        let probeID = probe.id
        let consumer = Task {
            do {
                for try await message in dao.observe(id: probeID) {
                    if let message, let generation = Int(message.text) { arrivals.record(generation) }
                }
            } catch {}
        }
        guard arrivals.wait(for: 0, timeout: 10) else {
            consumer.cancel()
            throw ObserveBenchmarkFailure("\(name): no first element")
        }
        return (probe, arrivals, consumer)
    }

    /// Writes the probe message `writes` times, each time waiting for the observer to receive it.
    static func inProcess(name: String, context: any StorageContext, writes: Int) throws -> Run {
        let dao = BaseDao<Message, MessageEntity>(context: context)
        let (stored, arrivals, consumer) = try observedProbe(dao, name: name)
        defer { consumer.cancel() }
        var probe = stored
        var samples: [Double] = []
        var fromCall: [Double] = []
        for generation in 1...writes {
            probe.text = "\(generation)"
            let called = MonotonicTime.nanoseconds()
            try dao.persist(probe)
            let committed = MonotonicTime.nanoseconds()
            guard arrivals.wait(for: generation, timeout: 10), let arrived = arrivals.time(of: generation) else {
                throw ObserveBenchmarkFailure("\(name): write \(generation) was not delivered")
            }
            samples.append(Double(arrived) - Double(committed))
            fromCall.append(Double(arrived) - Double(called))
        }
        return Run(name: name, writes: writes, samples: samples, fromCall: fromCall)
    }

    /// A child `ratios` process writes the probe every 150 ms (commits that close together would be
    /// coalesced into one delivery); the parent observes the store.
    static func crossProcess(writes: Int) throws -> Run {
        let directory = try BenchmarkDirectory(prefix: "daokit-latency-x")
        let context = try FileStorageContext(directory: URL(fileURLWithPath: directory.path))
        let dao = BaseDao<Message, MessageEntity>(context: context)
        let (_, arrivals, consumer) = try observedProbe(dao, name: "cross-process")
        defer { consumer.cancel() }
        let commits = try ObserveWriterChild.run(directory: directory.path, writes: writes)
        var samples: [Double] = []
        for (generation, committed) in commits {
            guard arrivals.wait(for: generation, timeout: 5), let arrived = arrivals.time(of: generation) else {
                continue
            }
            samples.append(Double(arrived) - Double(committed))
        }
        return Run(name: "file.crossProcess", writes: writes, samples: samples)
    }
}

/// When each generation reached the consumer.
final class ArrivalLog: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrivals: [Int: UInt64] = [:]

    func record(_ generation: Int) {
        let now = MonotonicTime.nanoseconds()
        condition.lock()
        arrivals[generation] = now
        condition.broadcast()
        condition.unlock()
    }

    func wait(for generation: Int, timeout: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while arrivals[generation] == nil {
            if !condition.wait(until: deadline) { return arrivals[generation] != nil }
        }
        return true
    }

    func time(of generation: Int) -> UInt64? {
        condition.lock()
        defer { condition.unlock() }
        return arrivals[generation]
    }
}
