import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads from another process than the writer's, against the `DAOKitCrashWriter batches` child
/// (see ``FileCrashTests`` for what it writes). A read never overlaps a batch in progress; and a
/// reader that stays open while a writer is killed finds the batch it left half applied through
/// the `.journal` it keeps open (see `JournalProbe`), and rolls it back before returning anything.
@Suite("File reader isolation")
struct FileReaderIsolationTests {
    static let kills = 12

    /// One record at a time, in the order the child's batches write them: each read is
    /// isolated from the child's batches on its own, so a later record can never be from an older
    /// batch than an earlier one, and no payload is ever torn. A read that overlapped a batch
    /// would see `base-0` already rewritten and `base-1` not yet.
    @Test func fetchingOneRecordAtATimeNeverSeesABatchInProgress() throws {
        try FileTestDirectory.with { directory in
            let child = try FileChildProcess(arguments: ["batches", directory.path])
            defer { child.killNow() }
            #expect(child.waitForLine("ready"))
            #expect(child.waitForLines(startingWith: "committed ", count: 1))
            let context = try FileStorageContext(directory: directory.url)
            var generations = Set<Int>()
            var passes = 0
            // Until 100 batches have gone by, so that many reads overlap one. Bounded by a generous
            // deadline rather than a count: a loaded machine may take long over one batch.
            let deadline = ContinuousClock.now.advanced(by: .seconds(60))
            while generations.count < 100 && ContinuousClock.now < deadline {
                var previous = 0
                for index in 0..<8 {
                    let id = "base-\(index)"
                    let record = try #require(try context.fetch(FileCrashRecord.self, id: id))
                    #expect(
                        record.generation >= previous,
                        "pass \(passes): \(id) is from batch \(record.generation), an earlier record from \(previous)")
                    #expect(
                        record.payload == Self.payload(id: id, generation: record.generation),
                        "pass \(passes): \(id) holds a torn payload")
                    previous = record.generation
                    generations.insert(record.generation)
                }
                passes += 1
            }
            #expect(generations.count > 1, "the child wrote nothing while the reader read \(passes) times")
        }
    }

    /// A context opened once, before the first kill, reads after each kill exactly what a context
    /// opened afterwards (which recovers on open) reads: never the half-applied batch. Its first
    /// read after a kill is `fetch` in even rounds and `fetchAll` in odd ones, so both roll back.
    @Test func aReaderKeptOpenAcrossKillsReadsWhatRecoveryOnOpenGives() throws {
        try FileTestDirectory.with { directory in
            var generator = SystemRandomNumberGenerator()
            let reader = try FileStorageContext(directory: directory.url)
            let ids = (0..<8).map { "base-\($0)" } + ["single"]
            var unfinished = 0
            for round in 0..<Self.kills {
                let child = try FileChildProcess(arguments: ["batches", directory.path])
                #expect(child.waitForLine("ready"), "round \(round): the child stopped before it was ready")
                #expect(child.waitForLines(startingWith: "committed ", count: Int.random(in: 0...2, using: &generator)))
                usleep(UInt32.random(in: 0...3_000, using: &generator))
                child.killNow()
                #expect(
                    child.process.terminationReason == .uncaughtSignal, "round \(round): the child exited on its own")
                if Self.journalSize(directory) > 0 { unfinished += 1 }

                var fetched: [String: FileCrashRecord] = [:]
                if round % 2 == 0 { for id in ids { fetched[id] = try reader.fetch(FileCrashRecord.self, id: id) } }
                let seen = try reader.fetchAll(FileCrashRecord.self).sorted { $0.id < $1.id }
                if round % 2 == 1 { for id in ids { fetched[id] = try reader.fetch(FileCrashRecord.self, id: id) } }
                #expect(Self.journalSize(directory) == 0, "round \(round): the reader left the journal")

                let recovered = try FileStorageContext(directory: directory.url).fetchAll(FileCrashRecord.self).sorted {
                    $0.id < $1.id
                }
                #expect(seen == recovered, "round \(round): the reader saw \(seen.map { "\($0.id)=\($0.generation)" })")
                for id in ids {
                    #expect(fetched[id] == recovered.first { $0.id == id }, "round \(round): fetch of \(id)")
                }
                #expect(
                    Set(seen.filter { $0.id.hasPrefix("base-") }.map(\.generation)).count <= 1,
                    "round \(round): a half batch")
            }
            // Most kills land inside a batch; if none did, this test proved nothing.
            #expect(unfinished > 0, "no kill left an unfinished batch")
        }
    }

    private static func payload(id: String, generation: Int) -> String {
        String(repeating: "g\(generation)-\(id);", count: 1 + (generation * 7 + id.utf8.count) % 40)
    }

    private static func journalSize(_ directory: FileTestDirectory) -> Int {
        var info = stat()
        return stat(directory.path + "/.journal", &info) == 0 ? Int(info.st_size) : 0
    }
}
