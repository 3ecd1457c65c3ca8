@testable import DAOKit
import Foundation
import Testing

/// Kills a child process that writes batches with SIGKILL at random moments, and checks after each
/// kill that every batch is whole or absent.
///
/// The child (`DAOKitCrashWriter batches`) runs generation g as: save base-0…7 and insert-g-0…3
/// with generation g (one batch), delete insert-(g-2)-* (one batch), save "single" (one write).
/// So with G the generation of base-0, a whole history means: every base record has generation G;
/// insert-g-* exist, whole, for g in G-1…G, all or none for g = G-2, none otherwise; "single" has
/// generation G-1 or G; and every payload is the one its generation writes.
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
                    #expect(child.waitForLines(startingWith: "committed ", count: generations), "round \(round): the child stopped")
                }
                usleep(UInt32.random(in: 0...3_000, using: &generator))
                child.killNow()
                #expect(child.process.terminationReason == .uncaughtSignal, "round \(round): the child exited on its own")
                generations.append(try Self.checkWholeHistory(try FileStorageContext(directory: directory.url), round: round))
            }
            // The kills must have landed at many different points, not all before the first batch
            // (loose, because under a loaded machine the child's fsyncs are slow).
            #expect(Set(generations).count >= Self.kills / 4, "generations seen: \(generations)")
        }
    }

    /// Checks the invariants above on what `context` holds and returns G. Shared with the
    /// SQLite context's crash test, whose child runs the same batches.
    static func checkWholeHistory(_ context: any StorageContext, round: Int) throws -> Int {
        let records = Dictionary(uniqueKeysWithValues: try context.fetchAll(FileCrashRecord.self).map { ($0.id, $0) })
        #expect(try context.count(FileCrashRecord.self) == records.count)
        guard let generation = records["base-0"]?.generation else {
            #expect(records.isEmpty, "round \(round): records without a first batch: \(records.keys.sorted())")
            return 0
        }
        var expected = Set<String>()
        for index in 0..<8 {
            expected.insert("base-\(index)")
            #expect(records["base-\(index)"]?.generation == generation, "round \(round): base-\(index) is not from batch \(generation)")
        }
        for g in max(1, generation - 1)...generation {
            for index in 0..<4 { expected.insert("insert-\(g)-\(index)") }
        }
        let older = (0..<4).map { "insert-\(generation - 2)-\($0)" }
        let olderPresent = older.filter { records[$0] != nil }
        #expect(olderPresent.isEmpty || olderPresent.count == 4, "round \(round): a delete batch was torn: \(olderPresent)")
        expected.formUnion(olderPresent)
        if let single = records["single"] {
            expected.insert("single")
            #expect(single.generation == generation || single.generation == generation - 1, "round \(round): single is \(single.generation), G is \(generation)")
        } else {
            #expect(generation == 1, "round \(round): single is missing")
        }
        #expect(Set(records.keys) == expected, "round \(round): G \(generation), unexpected \(Set(records.keys).symmetricDifference(expected).sorted())")
        for record in records.values {
            let expectedPayload = String(repeating: "g\(record.generation)-\(record.id);", count: 1 + (record.generation * 7 + record.id.utf8.count) % 40)
            #expect(record.payload == expectedPayload, "round \(round): \(record.id) holds a mixed payload")
            if record.id.hasPrefix("insert-") {
                #expect(record.id.hasPrefix("insert-\(record.generation)-"), "round \(round): \(record.id) has generation \(record.generation)")
            }
        }
        return generation
    }
}

/// Two processes writing different ids into one directory at the same time.
@Suite("File multi-process")
struct FileMultiProcessTests {
    @Test func twoProcessesWritingDifferentIDsAtOnceLoseNothing() throws {
        try FileTestDirectory.with { directory in
            _ = try FileStorageContext(directory: directory.url)
            let count = 60
            let children = try ["left", "right"].map { try FileChildProcess(arguments: ["writer", directory.path, $0, "\(count)"]) }
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
