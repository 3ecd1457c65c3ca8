import DAOKit
import DAOKitFileStore
import DAOKitTestSupport
import Foundation
import Testing

/// Kills a child process that seeds version 1 records and migrates them to version 2 with
/// `migrate()`, over and over, with SIGKILL at random moments, 50 times, and checks after each
/// kill, on reopening (and so after recovery), that every record is of one version: a migration
/// is never half written (``CrashWriterHistory/checkMigrations(_:round:)``).
@Suite("File store migrations are never torn by SIGKILL")
struct FileMigrationCrashTests {
    static let kills = 50

    @Test func noMigrationIsTornByFiftyKills() throws {
        try FileTestDirectory.with { directory in
            var generator = SystemRandomNumberGenerator()
            var outcomes: [Bool] = []
            var torn = 0
            for round in 0..<Self.kills {
                let child = try FileChildProcess(arguments: ["migrations", directory.path])
                // Every fifth kill lands while the child opens the store (so during recovery);
                // the others a moment after it seeded, or migrated, a counted number of generations.
                if round % 5 != 4 {
                    #expect(child.waitForLine("ready"), "round \(round): the child stopped before it was ready")
                    #expect(
                        child.waitForLines(
                            startingWith: round % 2 == 0 ? "seeded " : "migrated ",
                            count: Int.random(in: 1...2, using: &generator)),
                        "round \(round): the child stopped")
                }
                usleep(UInt32.random(in: 0...20_000, using: &generator))
                child.killNow()
                #expect(
                    child.process.terminationReason == .uncaughtSignal, "round \(round): the child exited on its own")
                let outcome = try CrashWriterHistory.checkMigrations(
                    try FileStorageContext(directory: directory.url), round: round)
                outcomes.append(outcome.migrated)
                torn += outcome.torn
            }
            #expect(torn == 0, "torn migrations in \(Self.kills) kills")
            #expect(outcomes.contains(true) && outcomes.contains(false), "\(outcomes)")
        }
    }
}
