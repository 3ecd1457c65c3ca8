import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// Kills a child process writing batches into a database file with SIGKILL at random moments,
/// and checks after each kill, on reopening, that every batch is whole or absent (the same
/// batches and invariants as the file store's crash tests, ``CrashWriterHistory``).
@Suite("SQLite crash (SIGKILL)")
struct SQLiteCrashTests {
    static let kills = 50

    @Test func everyBatchIsWholeOrAbsentAfterSIGKILL() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        var generator = SystemRandomNumberGenerator()
        var generations: [Int] = []
        for round in 0..<Self.kills {
            let child = try FileChildProcess(arguments: ["sqlite-batches", database.file.path])
            // Every fifth kill lands while the child opens the database; the others while it writes.
            if round % 5 != 4 {
                #expect(child.waitForLine("ready"), "round \(round): the child stopped before it was ready")
                #expect(
                    child.waitForLines(startingWith: "committed ", count: Int.random(in: 0...2, using: &generator)),
                    "round \(round): the child stopped")
            }
            usleep(UInt32.random(in: 0...3_000, using: &generator))
            child.killNow()
            #expect(child.process.terminationReason == .uncaughtSignal, "round \(round): the child exited on its own")
            generations.append(try CrashWriterHistory.checkWholeHistory(try database.open(), round: round))
        }
        #expect(Set(generations).count >= Self.kills / 4, "generations seen: \(generations)")
    }
}

/// Several writers on one database: two processes, and eight threads of one process.
@Suite("SQLite concurrent writers")
struct SQLiteConcurrentWriterTests {
    @Test func twoProcessesWritingAtOnceLoseNothing() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        _ = try database.open()
        let count = 200
        let children = try ["left", "right"].map {
            try FileChildProcess(arguments: ["sqlite-writer", database.file.path, $0, "\(count)"])
        }
        for child in children {
            let (status, errors) = child.wait()
            #expect(status == 0, "child failed: \(errors)")
        }
        let records = try database.open().fetchAll(FileCrashRecord.self)
        let expected = Set(["left", "right"].flatMap { prefix in (0..<count).map { "\(prefix)-\($0)" } })
        #expect(records.count == 2 * count)
        #expect(Set(records.map(\.id)) == expected)
        #expect(records.allSatisfy { $0.id.hasSuffix("-\($0.generation)") })
    }

    @Test func eightThreadsWritingAtOnceLoseNothing() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        let context = try database.open()
        let perThread = 100
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<perThread {
                let record = FileCrashRecord(id: "t\(thread)-\(index)", generation: index, payload: "p")
                #expect(throws: Never.self) { try context.save([record]) }
                if index % 10 == 0 { _ = try? context.fetchAll(FileCrashRecord.self) }
            }
        }
        #expect(try context.count(FileCrashRecord.self) == 8 * perThread)
        #expect(try database.open().count(FileCrashRecord.self) == 8 * perThread)
    }
}
