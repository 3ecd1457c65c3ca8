import DAOKit
import DAOKitTestSupport
import Foundation
import Testing

/// Kills a child process that seeds version 1 records and migrates them to version 2 with
/// `migrate()`, over and over, with SIGKILL at random moments, 50 times, and checks after each
/// kill that every record is of one version: a migration is never half written
/// (``CrashWriterHistory/checkMigrations(_:round:)``).
@Suite("SQLite migrations are never torn by SIGKILL")
struct SQLiteMigrationCrashTests {
    static let kills = 50

    @Test func noMigrationIsTornByFiftyKills() throws {
        let database = try TemporaryDatabase()
        defer { database.remove() }
        var generator = SystemRandomNumberGenerator()
        var outcomes: [Bool] = []
        var torn = 0
        for round in 0..<Self.kills {
            let child = try FileChildProcess(arguments: ["sqlite-migrations", database.file.path])
            // Every fifth kill lands while the child opens the database; the others a moment
            // after it seeded, or migrated, a counted number of generations.
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
            #expect(child.process.terminationReason == .uncaughtSignal, "round \(round): the child exited on its own")
            let outcome = try CrashWriterHistory.checkMigrations(try database.open(), round: round)
            outcomes.append(outcome.migrated)
            torn += outcome.torn
        }
        #expect(torn == 0, "torn migrations in \(Self.kills) kills")
        // The kills must have found the records both before and after a migration.
        #expect(outcomes.contains(true) && outcomes.contains(false), "\(outcomes)")
    }
}
