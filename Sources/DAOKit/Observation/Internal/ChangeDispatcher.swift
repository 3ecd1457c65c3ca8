import DAOKitInternals
import Foundation

/// DAOKit's change thread: delivers every notifier's posted changes to its subscribers, and polls
/// the external-change monitors of notifiers that have subscribers.
///
/// One thread for the whole process, started on first use and kept (it sleeps on a condition when
/// there is nothing to do). Posting costs a writer one lock and one signal; the fan-out to
/// subscribers happens here, so observers never slow writers down.
final class ChangeDispatcher: @unchecked Sendable {
    static let shared = ChangeDispatcher()

    // Sound as `Sendable`: every stored property below is touched only with `condition` locked.
    private let condition = NSCondition()
    /// Notifiers with posted changes waiting, in posting order.
    private var ready: [StorageChangeNotifier] = []
    /// Notifiers whose monitors are polled, with when each is due next.
    private var polled: [ObjectIdentifier: (notifier: StorageChangeNotifier, due: ContinuousClock.Instant)] = [:]
    private var isStarted = false

    private init() {}

    /// Queues `notifier`'s pending changes for delivery and wakes the thread.
    func schedule(_ notifier: StorageChangeNotifier) {
        condition.lock()
        ready.append(notifier)
        startIfNeeded()
        condition.signal()
        condition.unlock()
    }

    /// Polls `notifier`'s monitor every ``StorageChangeNotifier/pollInterval`` until
    /// ``stopPolling(_:)``.
    func startPolling(_ notifier: StorageChangeNotifier) {
        condition.lock()
        polled[ObjectIdentifier(notifier)] = (notifier, .now + notifier.pollInterval)
        startIfNeeded()
        condition.signal()
        condition.unlock()
    }

    func stopPolling(_ notifier: StorageChangeNotifier) {
        condition.lock()
        polled[ObjectIdentifier(notifier)] = nil
        condition.unlock()
    }

    /// Call with `condition` locked.
    private func startIfNeeded() {
        guard !isStarted else { return }
        isStarted = true
        Thread.start(named: "DAOKit changes", stackSize: 1 << 20) { [unowned self] in self.run() }
    }

    private func run() {
        while true {
            condition.lock()
            var due: [StorageChangeNotifier] = []
            while ready.isEmpty {
                let now = ContinuousClock.now
                due = polled.values.filter { $0.due <= now }.map(\.notifier)
                if !due.isEmpty { break }
                if let next = polled.values.map(\.due).min() {
                    let seconds =
                        Double((next - now).components.attoseconds) / 1e18 + Double((next - now).components.seconds)
                    _ = condition.wait(until: Date(timeIntervalSinceNow: max(seconds, 0.0005)))
                } else {
                    condition.wait()
                }
            }
            let delivering = ready
            ready = []
            let now = ContinuousClock.now
            due = polled.values.filter { $0.due <= now }.map(\.notifier)
            for notifier in due { polled[ObjectIdentifier(notifier)]?.due = now + notifier.pollInterval }
            condition.unlock()
            for notifier in delivering { notifier.deliverPending() }
            for notifier in due { notifier.poll() }
        }
    }
}
