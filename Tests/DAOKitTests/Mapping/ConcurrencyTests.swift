import Foundation
import Testing

@testable import DAOKit

/// One mapper shared by many tasks at once: per-thread coders must keep every result correct.
@Suite("Concurrent mapping")
struct ConcurrencyTests {
    @Test func eightConcurrentTasksMapCorrectly() async throws {
        let mapper = EntityMapper()
        let mismatches = try await withThrowingTaskGroup(of: Int.self) { group in
            for task in 0..<8 {
                group.addTask {
                    var mismatches = 0
                    for round in 0..<500 {
                        let id = task * 10_000 + round
                        let message = Message.sample(id, note: round.isMultiple(of: 2) ? "n\(id)" : nil)
                        let entity = try mapper.map(message, to: MessageEntity.self)
                        let back = try mapper.map(entity, to: Message.self)
                        if back != message { mismatches += 1 }
                        if round.isMultiple(of: 50) {
                            let dialog = Dialog(
                                id: id, isPinned: true, title: "d\(id)",
                                messages: (0..<5).map { Message.sample(id + $0) }, tags: ["t\(task)"])
                            if try mapper.map(mapper.map(dialog, to: DialogEntity.self), to: Dialog.self) != dialog {
                                mismatches += 1
                            }
                        }
                    }
                    return mismatches
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    /// Swift concurrency runs only as many threads as there are cores (two on the build machine),
    /// so eight `Thread`s make sure eight threads really map at once, each with its own coders,
    /// and that a thread's coders are freed when it exits while other threads go on.
    @Test func eightThreadsMapAtOnceAndExit() throws {
        let mapper = EntityMapper()
        let mismatches = MismatchCounter()
        let group = DispatchGroup()
        for task in 0..<8 {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                for round in 0..<300 {
                    let message = Message.sample(task * 10_000 + round, note: "t\(task)")
                    let back = try? mapper.map(mapper.map(message, to: MessageEntity.self), to: Message.self)
                    if back != message { mismatches.add() }
                }
            }
            thread.start()
        }
        #expect(group.wait(timeout: .now() + 120) == .success)
        #expect(mismatches.value == 0)
    }

    @Test func concurrentStrictFailuresReportTheirOwnPaths() async throws {
        let strict = EntityMapper(strict: true)
        let paths = await withTaskGroup(of: String?.self) { group in
            for task in 0..<8 {
                group.addTask {
                    let value = ["k\(task)": task]
                    do {
                        _ = try strict.map(value, to: Nothing.self)
                        return nil
                    } catch let error as MappingError {
                        return error.path
                    } catch {
                        return "unexpected \(error)"
                    }
                }
            }
            return await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(Set(paths.compactMap { $0 }) == Set((0..<8).map { "k\($0)" }))
    }
}

/// Counts mismatches from several threads.
final class MismatchCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
