import Dispatch

/// The connect timeouts of the calls waiting for a pooled connection, all on one Dispatch timer.
///
/// Every call arms a deadline when it asks the pool for a connection and disarms it when the
/// connection comes — almost always within microseconds. A Dispatch work item per call put one
/// entry per statement into Dispatch's timer heap, each run (as a no-op) seconds later; it cost a
/// short query a few percent. Here arming is a dictionary insert under a lock, and the one timer
/// is moved only when a deadline is earlier than the one it is set for. In steady use, with one
/// timeout for every call, the timer wakes once per timeout, finds the calls it was set for long
/// disarmed, and is set again for the oldest call still waiting, if any.
final class LeaseDeadlines: Sendable {
    /// The deadlines of every context in the process.
    static let shared = LeaseDeadlines()

    /// One armed deadline, to disarm it with.
    struct Handle: Sendable {
        fileprivate let id: UInt64
    }

    private struct Pending {
        var deadline: DispatchTime
        var expire: @Sendable () -> Void
    }

    private struct State {
        /// Set only under the lock, so that two calls cannot leave it set for the later of their
        /// deadlines.
        let timer: any DispatchSourceTimer
        var lastID: UInt64 = 0
        var pending: [UInt64: Pending] = [:]
        /// What the timer is set for; `nil` when it is not set.
        var timerDeadline: DispatchTime?
    }

    private let state: Locked<State>
    /// How late a deadline may fire: a connect timeout is seconds long, and leeway lets Dispatch
    /// coalesce wake-ups.
    private static let leeway = DispatchTimeInterval.milliseconds(10)

    init() {
        state = Locked(
            State(timer: DispatchSource.makeTimerSource(queue: DispatchQueue(label: "DAOKitPostgres.lease-deadlines"))))
        state.withLock { state in
            state.timer.setEventHandler { [weak self] in self?.expireDue() }
            state.timer.activate()
        }
    }

    deinit {
        state.withLock { $0.timer.cancel() }
    }

    /// Calls `expire` once `timeout` has passed, unless ``disarm(_:)`` comes first.
    func arm(after timeout: Duration, _ expire: @escaping @Sendable () -> Void) -> Handle {
        let deadline = DispatchTime.now() + Self.seconds(timeout)
        return state.withLock { state in
            state.lastID += 1
            state.pending[state.lastID] = Pending(deadline: deadline, expire: expire)
            if state.timerDeadline.map({ deadline < $0 }) ?? true {
                state.timerDeadline = deadline
                state.timer.schedule(deadline: deadline, leeway: Self.leeway)
            }
            return Handle(id: state.lastID)
        }
    }

    /// Stops `handle`'s deadline from expiring; nothing when it already has.
    func disarm(_ handle: Handle) {
        state.withLock { _ = $0.pending.removeValue(forKey: handle.id) }
    }

    /// Expires every deadline that has passed and sets the timer for the earliest of the rest.
    private func expireDue() {
        let now = DispatchTime.now()
        let due = state.withLock { state -> [Pending] in
            var due: [Pending] = []
            var earliest: DispatchTime?
            for (id, pending) in state.pending {
                if pending.deadline <= now {
                    due.append(pending)
                    state.pending.removeValue(forKey: id)
                } else if earliest.map({ pending.deadline < $0 }) ?? true {
                    earliest = pending.deadline
                }
            }
            state.timerDeadline = earliest
            if let earliest { state.timer.schedule(deadline: earliest, leeway: Self.leeway) }
            return due
        }
        // In deadline order, which is what a caller of two deadlines would expect even when one
        // late wake-up finds both due.
        for pending in due.sorted(by: { $0.deadline < $1.deadline }) { pending.expire() }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
