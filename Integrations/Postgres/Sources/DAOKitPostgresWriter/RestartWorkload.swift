import DAOKit
import DAOKitPostgres
import DAOKitPostgresTestSupport
import Foundation

/// Batches written while the server stops and starts again: the restart test's workload.
///
/// It writes numbered batches of 50 notes; after `batches / 2` have committed it stops the server
/// (`$DAOKIT_PG_CTL stop`) and starts it (`start`) while a background task keeps writing, then
/// writes until `batches` have committed in all. It then reads everything back and reports, as
/// `done committed=<n> failed=<n> afterRestart=<n> torn=<n> lost=<n>`: every batch must be whole or
/// absent (`torn`), and every batch whose save returned must be there (`lost`).
struct RestartWorkload {
    let context: PostgresStorageContext
    let batches: Int
    static let batchSize = 50

    func run() throws -> String {
        let state = WorkloadState()
        let writer = Thread {
            var number = 0
            while state.committedCount() < batches {
                let batch = (0..<Self.batchSize).map {
                    FixtureNoteEntity(id: "b\(number)-\($0)", body: "batch \(number)")
                }
                do {
                    try context.save(batch)
                    state.committed(number)
                } catch {
                    state.failed(number)
                }
                number += 1
            }
            state.finish()
        }
        writer.start()
        state.waitForCommitted(batches / 2)
        try ServerControl.run("stop")
        state.markRestarted()
        try ServerControl.run("start")
        state.waitUntilFinished()
        let stored = try context.fetchAll(FixtureNoteEntity.self)
        var perBatch: [String: Int] = [:]
        for note in stored { perBatch[note.body, default: 0] += 1 }
        let torn = perBatch.values.filter { $0 != Self.batchSize }.count
        let lost = state.committedBatches().filter { perBatch["batch \($0)"] != Self.batchSize }.count
        return
            "done committed=\(state.committedCount()) failed=\(state.failedCount()) afterRestart=\(state.committedAfterRestart()) "
            + "torn=\(torn) lost=\(lost)"
    }
}

/// What the writer thread did, shared with the main thread.
final class WorkloadState: @unchecked Sendable {
    private let condition = NSCondition()
    private var committed: [Int] = []
    private var failures = 0
    private var restarted = false
    private var afterRestart = 0
    private var finished = false

    func committed(_ number: Int) {
        condition.withLock {
            committed.append(number)
            if restarted { afterRestart += 1 }
            condition.broadcast()
        }
    }

    func failed(_ number: Int) { condition.withLock { failures += 1 } }
    func markRestarted() { condition.withLock { restarted = true } }
    func finish() {
        condition.withLock {
            finished = true
            condition.broadcast()
        }
    }
    func committedCount() -> Int { condition.withLock { committed.count } }
    func committedBatches() -> [Int] { condition.withLock { committed } }
    func failedCount() -> Int { condition.withLock { failures } }
    func committedAfterRestart() -> Int { condition.withLock { afterRestart } }

    func waitForCommitted(_ count: Int) {
        condition.withLock { while committed.count < count && !finished { condition.wait() } }
    }

    func waitUntilFinished() {
        condition.withLock { while !finished { condition.wait() } }
    }
}
