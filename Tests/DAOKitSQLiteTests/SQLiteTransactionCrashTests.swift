import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// Kills a child process that runs transactions over two entity types in a database file with
/// SIGKILL at random moments, 50 times, and checks after each kill, on reopening, that no
/// transaction is torn (``CrashWriterHistory/checkTransactions``, as for the file store).
@Suite("SQLite transactions are never torn by SIGKILL")
struct SQLiteTransactionCrashTests {
    static let kills = 50

    @Test func noTransactionIsTornByFiftyKills() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        var generator = SystemRandomNumberGenerator()
        var sequences: [Int] = []
        var torn = 0
        for round in 0..<Self.kills {
            let child = try FileChildProcess(arguments: ["sqlite-transactions", database.file.path])
            // Every fifth kill lands while the child opens the database; the others while it commits.
            if round % 5 != 4 {
                #expect(child.waitForLine("ready"), "round \(round): the child stopped before it was ready")
                #expect(
                    child.waitForLines(startingWith: "committed ", count: Int.random(in: 0...2, using: &generator)),
                    "round \(round): the child stopped")
            }
            usleep(UInt32.random(in: 0...3_000, using: &generator))
            child.killNow()
            #expect(child.process.terminationReason == .uncaughtSignal, "round \(round): the child exited on its own")
            let (sequence, tornHere) = try CrashWriterHistory.checkTransactions(try database.open(), round: round)
            sequences.append(sequence)
            torn += tornHere
        }
        #expect(torn == 0, "torn transactions in \(Self.kills) kills")
        #expect(Set(sequences).count >= Self.kills / 4, "transactions seen: \(sequences)")
    }
}
