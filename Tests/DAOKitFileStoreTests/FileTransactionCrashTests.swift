import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

/// Kills a child process that runs transactions over two entity types with SIGKILL at random
/// moments, 50 times, and checks after each kill, on reopening, that no transaction is torn: one
/// type's part is never there without the other's (``CrashWriterHistory/checkTransactions``).
@Suite("File transactions are never torn by SIGKILL")
struct FileTransactionCrashTests {
    static let kills = 50

    @Test func noTransactionIsTornByFiftyKills() throws {
        try FileTestDirectory.with { directory in
            var generator = SystemRandomNumberGenerator()
            var sequences: [Int] = []
            var torn = 0
            for round in 0..<Self.kills {
                let child = try FileChildProcess(arguments: ["transactions", directory.path])
                // Every fifth kill lands while the child opens the store (so during recovery);
                // the others while it commits, after a counted number of transactions.
                if round % 5 != 4 {
                    #expect(child.waitForLine("ready"), "round \(round): the child stopped before it was ready")
                    #expect(
                        child.waitForLines(startingWith: "committed ", count: Int.random(in: 0...2, using: &generator)),
                        "round \(round): the child stopped")
                }
                usleep(UInt32.random(in: 0...3_000, using: &generator))
                child.killNow()
                #expect(
                    child.process.terminationReason == .uncaughtSignal, "round \(round): the child exited on its own")
                let (sequence, tornHere) = try CrashWriterHistory.checkTransactions(
                    try FileStorageContext(directory: directory.url), round: round)
                sequences.append(sequence)
                torn += tornHere
            }
            #expect(torn == 0, "torn transactions in \(Self.kills) kills")
            // The kills must have landed at many different points (loose: fsyncs are slow on a
            // loaded machine).
            #expect(Set(sequences).count >= Self.kills / 4, "transactions seen: \(sequences)")
        }
    }
}
