import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

/// Kills a child process that writes batches with SIGKILL at random moments, and checks after each
/// kill that every batch is whole or absent.
///
/// The child (`DAOKitCrashWriter batches`) runs the generations ``CrashWriterHistory`` describes.
@Suite("File crash (SIGKILL)")
struct FileCrashTests {
    static let kills = 24

    @Test func everyBatchIsWholeOrAbsentAfterSIGKILL() throws {
        try FileTestDirectory.with { directory in
            var generator = SystemRandomNumberGenerator()
            var generations: [Int] = []
            for round in 0..<Self.kills {
                let child = try FileChildProcess(arguments: ["batches", directory.path])
                // Every fourth kill lands while the child opens the store (so during recovery);
                // the others while it writes.
                if round % 4 != 3 {
                    #expect(child.waitForLine("ready"), "round \(round): the child stopped before it was ready")
                    // Kill after a random number of whole generations plus a random moment of the
                    // next one: counted, not timed, so a slow machine still spreads the kills.
                    let generations = Int.random(in: 0...2, using: &generator)
                    #expect(
                        child.waitForLines(startingWith: "committed ", count: generations),
                        "round \(round): the child stopped")
                }
                usleep(UInt32.random(in: 0...3_000, using: &generator))
                child.killNow()
                #expect(
                    child.process.terminationReason == .uncaughtSignal, "round \(round): the child exited on its own")
                generations.append(
                    try CrashWriterHistory.checkWholeHistory(
                        try FileStorageContext(directory: directory.url), round: round))
            }
            // The kills must have landed at many different points, not all before the first batch
            // (loose, because under a loaded machine the child's fsyncs are slow).
            #expect(Set(generations).count >= Self.kills / 4, "generations seen: \(generations)")
        }
    }
}

/// Two processes writing different ids into one directory at the same time.
@Suite("File multi-process")
struct FileMultiProcessTests {
    @Test func twoProcessesWritingDifferentIDsAtOnceLoseNothing() throws {
        try FileTestDirectory.with { directory in
            _ = try FileStorageContext(directory: directory.url)
            let count = 60
            let children = try ["left", "right"].map {
                try FileChildProcess(arguments: ["writer", directory.path, $0, "\(count)"])
            }
            for child in children {
                let (status, errors) = child.wait()
                #expect(status == 0, "child failed: \(errors)")
            }
            let records = try FileStorageContext(directory: directory.url).fetchAll(FileCrashRecord.self)
            let expected = Set(["left", "right"].flatMap { prefix in (0..<count).map { "\(prefix)-\($0)" } })
            #expect(Set(records.map(\.id)) == expected)
            #expect(records.allSatisfy { $0.id.hasSuffix("-\($0.generation)") })
        }
    }

    @Test func aReaderInAnotherProcessNeverSeesAHalfBatch() throws {
        try FileTestDirectory.with { directory in
            let child = try FileChildProcess(arguments: ["batches", directory.path])
            defer { child.killNow() }
            #expect(child.waitForLine("ready"))
            let context = try FileStorageContext(directory: directory.url)
            // "ready" comes before the first batch; wait for it to land.
            #expect(child.waitForLines(startingWith: "committed ", count: 1))
            // Read until two different batches have been seen: a loaded machine may take long
            // over one batch, so the reads are bounded by a generous deadline, not a count.
            var generations = Set<Int>()
            let deadline = ContinuousClock.now.advanced(by: .seconds(60))
            var reads = 0
            while generations.count < 2 && ContinuousClock.now < deadline {
                let base = try context.fetchAll(FileCrashRecord.self).filter { $0.id.hasPrefix("base-") }
                #expect(base.count == 8)
                #expect(Set(base.map(\.generation)).count == 1, "a batch seen half applied: \(base.map(\.generation))")
                generations.formUnion(base.map(\.generation))
                reads += 1
            }
            #expect(generations.count > 1, "the child wrote nothing while the reader read \(reads) times")
        }
    }
}
