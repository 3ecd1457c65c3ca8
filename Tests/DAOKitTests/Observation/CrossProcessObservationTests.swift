import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore
@testable import DAOKitSQLite

/// A file store's observers see commits made by other processes and by other contexts on the same
/// directory, through the change-log monitor.
@Suite("Cross-process observation")
struct CrossProcessObservationTests {
    typealias CrashRecordDao = BaseDao<FileCrashRecord, FileCrashRecord>

    @Test("an observer of a file store sees a write by a child process")
    func anObserverOfAFileStoreSeesAWriteByAChildProcess() async throws {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        let dao = CrashRecordDao(context: try FileStorageContext(directory: directory.url))
        let count = StreamRecorder(dao.observeCount())
        let one = StreamRecorder(dao.observe(id: "child-7"))
        defer {
            count.cancel()
            one.cancel()
        }
        #expect(await count.waitUntil { $0 == [0] })
        #expect(await one.waitUntil { $0.count == 1 })
        let child = try FileChildProcess(arguments: ["writer", directory.path, "child", "20"])
        let (status, output, errors) = child.finish()
        #expect(status == 0, "\(errors)")
        #expect(output.last == "done")
        #expect(await count.waitUntil { $0.last == 20 })
        #expect(await one.waitUntil { $0.last??.generation == 7 })
    }

    @Test("an observer of an SQLite database sees a write by a child process")
    func anObserverOfAnSQLiteDatabaseSeesAWriteByAChildProcess() async throws {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(at: directory.url, withIntermediateDirectories: true)
        let file = directory.url.appendingPathComponent("store.sqlite")
        let dao = CrashRecordDao(context: try SQLiteStorageContext(file: file))
        let count = StreamRecorder(dao.observeCount())
        let one = StreamRecorder(dao.observe(id: "child-7"))
        defer {
            count.cancel()
            one.cancel()
        }
        #expect(await count.waitUntil { $0 == [0] })
        #expect(await one.waitUntil { $0.count == 1 })
        let child = try FileChildProcess(arguments: ["sqlite-writer", file.path, "child", "20"])
        let (status, output, errors) = child.finish()
        #expect(status == 0, "\(errors)")
        #expect(output.last == "done")
        #expect(await count.waitUntil { $0.last == 20 })
        #expect(await one.waitUntil { $0.last??.generation == 7 })
    }

    @Test("an observer sees a write through another context on the same directory, and not its own twice")
    func anObserverSeesAWriteThroughAnotherContextOnTheSameDirectory() async throws {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        let observed = LiveNoteDao(context: try FileStorageContext(directory: directory.url))
        let other = LiveNoteDao(context: try FileStorageContext(directory: directory.url))
        let recorder = StreamRecorder(observed.observe(sortedBy: [SortDescriptor(\.id)]))
        defer { recorder.cancel() }
        #expect(await recorder.waitUntil { $0 == [[]] })
        try await other.persist(note("a", 1))
        #expect(await recorder.waitUntil { $0.last == [note("a", 1)] })
        try other.context.reset()
        #expect(await recorder.waitUntil { $0.last == [] })
        try await observed.persist(note("b", 2))
        #expect(await recorder.waitUntil { $0.last == [note("b", 2)] })
        try await Task.sleep(for: .milliseconds(300))  // two polls: the monitor skips this context's own lines
        #expect(recorder.elements == [[], [note("a", 1)], [], [note("b", 2)]])
    }

    @Test("every commit of another context arrives, one after another")
    func everyCommitOfAnotherContextArrivesOneAfterAnother() async throws {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        let other = LiveNoteDao(context: try FileStorageContext(directory: directory.url))
        try await other.persist(note("p", 0))  // the log holds lines before the observation starts
        let observed = LiveNoteDao(context: try FileStorageContext(directory: directory.url))
        let recorder = StreamRecorder(observed.observe(id: "p"))
        defer { recorder.cancel() }
        #expect(await recorder.waitUntil { $0 == [note("p", 0)] })
        for generation in 1...8 {
            try await other.persist(note("p", generation))
            #expect(await recorder.waitUntil { $0.last??.number == generation }, "generation \(generation)")
        }
        #expect(recorder.elements.map { $0?.number } == Array(0...8))
    }

    @Test("the monitor polls only while someone observes")
    func theMonitorPollsOnlyWhileSomeoneObserves() async throws {
        let directory = FileTestDirectory()
        defer { directory.remove() }
        let context = try FileStorageContext(directory: directory.url)
        let notifier = try #require(context.changeNotifier)
        #expect(!notifier.hasSubscribers)
        let recorder = StreamRecorder(LiveNoteDao(context: context).observeCount())
        #expect(await recorder.waitUntil { $0 == [0] })
        #expect(notifier.hasSubscribers)
        recorder.cancel()
        #expect(await recorder.waitUntilFinished())
        let deadline = ContinuousClock.now + .seconds(10)
        while notifier.hasSubscribers && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!notifier.hasSubscribers)
    }
}
