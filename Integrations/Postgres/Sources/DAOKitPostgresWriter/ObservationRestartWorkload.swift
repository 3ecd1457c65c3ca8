import DAOKit
import DAOKitPostgres
import DAOKitPostgresTestSupport
import Foundation

/// Observations across a server stop longer than the connect timeout, while two writers (two
/// instances, each a context of its own) keep writing: the observation-restart test's workload.
///
/// Three observations watch the count of notes: two on a context that only observes, one on a
/// writer's context. Once a quarter of the notes are written, the server stops for
/// ``outage``, then starts again; the writers retry each note until it is stored. Once they are
/// done, the workload waits for every observation's latest element to be the final count and
/// prints, before its result line, one `error <description>` line per distinct failure the
/// writers saw and one `stopped <description>` line per call made while the server was stopped,
/// then:
///
///     done final=<n> observers=<n> converged=<n> ended=<n> writeFailures=<n> notIO=<n> unnamedServer=<n>
///
/// `ended` counts observations whose stream ended (each also printed as `ended <error>`), `notIO`
/// failures that were not ``StorageError/Code/io``, `unnamedServer` failures that did not name
/// the server as their location.
struct ObservationRestartWorkload {
    let configuration: PostgresStorageContext.Configuration
    let notes: Int
    /// How long the server stays stopped: longer than the connect timeout.
    var outage: Duration { configuration.connectTimeout * 2 }

    /// How long the whole workload may take before the process gives up (exit status 1), so that
    /// a server that never comes back fails the test rather than hangs it.
    static let deadline: Double = 180

    func run() throws -> String {
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.deadline) {
            print("error the workload did not finish within \(Self.deadline) seconds")
            exit(1)
        }
        let watcher = PostgresStorageContext(configuration: configuration)
        let writers = (0..<2).map { _ in PostgresStorageContext(configuration: configuration) }
        defer { ([watcher] + writers).forEach { $0.close() } }
        let observations = [
            Observation(BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: watcher).observeCount()) { $0 },
            Observation(BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: watcher).observe()) { $0.count },
            Observation(BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: writers[0]).observeCount()) { $0 },
        ]
        let failures = FailureLog()
        let progress = Progress()
        let threads = writers.enumerated().map { number, context in
            Thread {
                let dao = BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: context)
                for index in 0..<(notes / 2) {
                    while true {
                        do {
                            try dao.persist(FixtureNoteEntity(id: "w\(number)-\(index)", body: "note"))
                            progress.stored()
                            break
                        } catch {
                            failures.record(error)
                            Thread.sleep(forTimeInterval: 0.05)
                        }
                    }
                }
                progress.writerFinished()
            }
        }
        threads.forEach { $0.start() }
        progress.wait { $0.stored >= notes / 4 }
        try ServerControl.run("stop")
        let stoppedAt = ContinuousClock.now
        var stopped: [String] = []
        // A context that had connections, and one that never connected.
        let fresh = PostgresStorageContext(configuration: configuration)
        defer { fresh.close() }
        for context in [writers[1], fresh] {
            do {
                _ = try context.count(FixtureNoteEntity.self)
                stopped.append("no error")
            } catch {
                stopped.append(String(describing: error))
            }
        }
        let rest = outage - stoppedAt.duration(to: .now)
        if rest > .zero {
            Thread.sleep(forTimeInterval: Double(rest.components.seconds) + Double(rest.components.attoseconds) / 1e18)
        }
        try ServerControl.run("start")
        progress.wait { $0.finishedWriters == 2 }
        let final = try retrying { try BaseDao<FixtureNoteEntity, FixtureNoteEntity>(context: watcher).count() }
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline && !observations.allSatisfy({ $0.latest == final || $0.ended != nil }) {
            Thread.sleep(forTimeInterval: 0.05)
        }
        var lines = failures.distinctDescriptions.map { "error \($0)" } + stopped.map { "stopped \($0)" }
        lines += observations.compactMap { $0.ended.map { "ended \($0)" } }
        let converged = observations.filter { $0.latest == final }.count
        let ended = observations.filter { $0.ended != nil }.count
        observations.forEach { $0.cancel() }
        let server =
            "postgres://\(configuration.username)@\(configuration.host):\(configuration.port)/\(configuration.database)"
        lines.append(
            "done final=\(final) observers=\(observations.count) converged=\(converged) ended=\(ended) "
                + "writeFailures=\(failures.count) notIO=\(failures.count { $0.kind.code != .io }) "
                + "unnamedServer=\(failures.count { $0.location != server })")
        return lines.joined(separator: "\n")
    }
}

/// What `body` returns, tried again every 100 ms while it throws, for at most 30 seconds: the
/// pool may still be pausing between connection attempts when the server is back.
private func retrying<T>(_ body: () throws -> T) throws -> T {
    let deadline = ContinuousClock.now + .seconds(30)
    while true {
        do {
            return try body()
        } catch  where ContinuousClock.now < deadline {
            Thread.sleep(forTimeInterval: 0.1)
        }
    }
}

/// One observation's latest element, consumed by a task of its own.
private final class Observation: @unchecked Sendable {
    // Sound as `Sendable`: the state is only touched under the lock.
    private let lock = NSLock()
    private var latestValue: Int?
    private var endedWith: String?
    private var task: Task<Void, Never>?

    /// Observes `stream`, keeping `count(element)` of its latest element.
    init<Element: Sendable>(
        _ stream: AsyncThrowingStream<Element, any Error>, count: @escaping @Sendable (Element) -> Int
    ) {
        task = Task {
            do {
                for try await element in stream {
                    let value = count(element)
                    self.lock.withLock { self.latestValue = value }
                }
                self.lock.withLock { self.endedWith = "finished" }
            } catch {
                self.lock.withLock { self.endedWith = String(describing: error) }
            }
        }
    }

    var latest: Int? { lock.withLock { latestValue } }
    var ended: String? { lock.withLock { endedWith } }
    func cancel() { lock.withLock { task }?.cancel() }
}

/// The failures the writers saw.
private final class FailureLog: @unchecked Sendable {
    // Sound as `Sendable`: the state is only touched under the lock.
    private let lock = NSLock()
    private var errors: [StorageError] = []
    private var others = 0

    func record(_ error: any Error) {
        lock.withLock {
            if let error = error as? StorageError { errors.append(error) } else { others += 1 }
        }
    }

    var count: Int { lock.withLock { errors.count + others } }

    /// How many failures `isWrong` holds for; a failure that is not a ``StorageError`` always counts.
    func count(where isWrong: (StorageError) -> Bool) -> Int {
        lock.withLock { errors.filter(isWrong).count + others }
    }

    /// Each distinct description once, in the order first seen.
    var distinctDescriptions: [String] {
        lock.withLock {
            var seen = Set<String>()
            return errors.map { String(describing: $0) }.filter { seen.insert($0).inserted }
        }
    }
}

/// How far the writers are.
private final class Progress: @unchecked Sendable {
    // Sound as `Sendable`: the state is only touched under the condition's lock.
    struct State {
        var stored = 0
        var finishedWriters = 0
    }

    private let condition = NSCondition()
    private var state = State()

    func stored() { update { $0.stored += 1 } }
    func writerFinished() { update { $0.finishedWriters += 1 } }

    func wait(until isReached: (State) -> Bool) {
        condition.withLock { while !isReached(state) { condition.wait() } }
    }

    private func update(_ change: (inout State) -> Void) {
        condition.withLock {
            change(&state)
            condition.broadcast()
        }
    }
}
