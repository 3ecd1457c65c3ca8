import DAOKit
import Foundation

/// A task of the transaction tests, with a declared index, so that a transaction's first save of
/// it creates that index.
struct PgTxTask: Storable, Equatable, Sendable {
    var id: String
    var title: String
    static let indexes = [StorageIndex("title")]
}

/// A task's comment: the second entity type a transaction writes.
struct PgTxComment: Storable, Equatable, Sendable {
    var id: String
    var taskID: String
}

/// A counter that transactions read, increment and write.
struct PgTxCounter: Storable, Equatable, Sendable {
    var id: String
    var value: Int
}

/// A write after the others, whose announcement says the earlier ones have been delivered.
struct PgTxMarker: Storable, Equatable, Sendable {
    var id: String
}

/// A type only a rolled-back transaction writes.
struct PgTxDraft: Storable, Equatable, Sendable {
    var id: String
}

typealias PgTxTaskDao = BaseDao<PgTxTask, PgTxTask>
typealias PgTxCommentDao = BaseDao<PgTxComment, PgTxComment>
typealias PgTxCounterDao = BaseDao<PgTxCounter, PgTxCounter>

/// The error a test body throws to roll its transaction back.
struct PgTxRollback: Error {}

/// Lets `parties` tasks wait until all of them have arrived.
final class PgTxBarrier: Sendable {
    private let parties: Int
    private let state = PgTxLocked<(arrived: Int, waiting: [CheckedContinuation<Void, Never>])>((0, []))

    init(parties: Int) {
        self.parties = parties
    }

    func arrive() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let released = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.arrived += 1
                state.waiting.append(continuation)
                guard state.arrived == parties else { return [] }
                defer { state.waiting = [] }
                return state.waiting
            }
            for waiter in released { waiter.resume() }
        }
    }
}

/// A value guarded by a lock, for the tests' threads and tasks.
final class PgTxLocked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
