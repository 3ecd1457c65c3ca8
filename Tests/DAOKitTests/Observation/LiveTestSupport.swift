import DAOKitInternals
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit

/// The domain value of the live-results tests.
struct LiveNote: Codable, Identifiable, Equatable, Sendable {
    var id: String
    var text: String
    var number: Int
}

struct LiveNoteEntity: Storable, Sendable {
    var id: String
    var text: String
    var number: Int
}

/// A second entity type, for "writes to other types deliver nothing".
struct LiveTag: Codable, Identifiable, Equatable, Sendable {
    var id: String
    var label: String
}

struct LiveTagEntity: Storable, Sendable {
    var id: String
    var label: String
}

typealias LiveNoteDao = BaseDao<LiveNote, LiveNoteEntity>
typealias LiveTagDao = BaseDao<LiveTag, LiveTagEntity>

func note(_ id: String, _ number: Int, _ text: String = "") -> LiveNote {
    LiveNote(id: id, text: text.isEmpty ? "note \(id)" : text, number: number)
}

/// Consumes a stream in a task of its own and records what it delivers, so that tests can wait
/// for an element with a deadline instead of hanging.
final class StreamRecorder<Element: Sendable>: Sendable {
    private struct State {
        var elements: [Element] = []
        var finished = false
        var error: (any Error)?
    }

    private let state = Locked(State())
    private let task: Locked<Task<Void, Never>?> = Locked(nil)

    init(_ stream: AsyncThrowingStream<Element, any Error>) {
        let state = self.state
        task.withLock {
            $0 = Task {
                do {
                    for try await element in stream { state.withLock { $0.elements.append(element) } }
                    state.withLock { $0.finished = true }
                } catch {
                    state.withLock {
                        $0.error = error
                        $0.finished = true
                    }
                }
            }
        }
    }

    var elements: [Element] { state.withLock { $0.elements } }
    var isFinished: Bool { state.withLock { $0.finished } }
    var error: (any Error)? { state.withLock { $0.error } }

    /// Cancels the consuming task, as a SwiftUI view going away does.
    func cancel() {
        task.withLock { $0?.cancel() }
    }

    /// Waits until `condition` holds for the elements so far; `false` when `timeout` passes first.
    /// A generous bound against a hang, not a measure of speed: in a full parallel test run, other
    /// suites' synchronous tests can hold the cooperative pool (where this wait and the consuming
    /// task run) for many seconds.
    @discardableResult
    func waitUntil(timeout: Duration = .seconds(90), _ condition: ([Element]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if state.withLock({ condition($0.elements) }) { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return state.withLock { condition($0.elements) }
    }

    /// Waits until the stream has ended; `false` when `timeout` passes first.
    @discardableResult
    func waitUntilFinished(timeout: Duration = .seconds(90)) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if isFinished { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return isFinished
    }
}

/// How long a negative check waits for an element that must not come: long enough for a delivery
/// to happen on a loaded machine (in-process delivery takes well under a millisecond).
let silenceWindow = Duration.milliseconds(150)

/// A context that announces nothing: `StorageContext`'s defaults for `changeNotifier` and `reset()`.
final class SilentContext: StorageContext {
    let base = InMemoryStorageContext()
    func save<E: Storable>(_ entities: [E]) throws { try base.save(entities) }
    func save<E: Storable>(_ entities: [E], mode: SaveMode) throws { try base.save(entities, mode: mode) }
    func fetch<E: Storable>(_ type: E.Type, id: E.ID) throws -> E? { try base.fetch(type, id: id) }
    func fetchAll<E: Storable>(_ type: E.Type) throws -> [E] { try base.fetchAll(type) }
    func delete<E: Storable>(_ type: E.Type, ids: [E.ID]) throws { try base.delete(type, ids: ids) }
    func deleteAll<E: Storable>(_ type: E.Type) throws { try base.deleteAll(type) }
    func count<E: Storable>(_ type: E.Type) throws -> Int { try base.count(type) }
}

/// The shipped contexts every live-results promise is checked on.
enum LiveContextKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory, keyValue, file, sqlite
    var testDescription: String { rawValue }

    /// A fresh, empty context of this kind, and what to call when the test is done.
    func make() throws -> (context: any StorageContext, cleanUp: @Sendable () -> Void) {
        let fresh = try factory.make()
        return (fresh.context, fresh.cleanUp)
    }

    /// How ``make()`` makes the context: the test targets' one way (`DAOKitTestSupport`).
    var factory: ContextFactory {
        switch self {
        case .memory: return .memory
        case .keyValue: return .keyValueInMemory
        case .file: return .fileJSON
        case .sqlite: return .sqliteFile
        }
    }
}
