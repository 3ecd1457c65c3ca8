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
                            let dialog = Dialog(id: id, isPinned: true, title: "d\(id)", messages: (0..<5).map { Message.sample(id + $0) }, tags: ["t\(task)"])
                            if try mapper.map(mapper.map(dialog, to: DialogEntity.self), to: Dialog.self) != dialog { mismatches += 1 }
                        }
                    }
                    return mismatches
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(mismatches == 0)
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
