import DAOKitInternals
import Foundation

/// The channel through which a ``StorageContext`` announces its committed writes, and from which
/// observers (``BaseDao``'s `observe` methods, or your own code) learn about them.
///
/// A context owns one notifier, exposes it as ``StorageContext/changeNotifier``, and calls
/// ``post(_:)`` after every write that committed (never before, and never for a write that
/// failed and changed nothing):
///
/// ```swift
/// public final class MyContext: StorageContext {
///     public let changeNotifier: StorageChangeNotifier? = StorageChangeNotifier()
///     public func save<E: Storable>(_ entities: [E]) throws {
///         try write(entities)  // commits
///         changeNotifier?.post(StorageChange(entityName: E.entityName,
///                                            storageKeys: Set(entities.map(\.id.storageKey))))
///     }
/// }
/// ```
///
/// **What a writer pays.** ``post(_:)`` takes one lock, appends the change to a queue and, when
/// the queue was empty, signals DAOKit's change thread; with no subscriber it only takes the lock.
/// Subscribers' handlers run on that thread, never on the writer's, so a write costs the same
/// whether one or a hundred observers watch. Posts made in a burst while the change thread is busy
/// are delivered together as one array.
///
/// **Other processes.** A notifier created with an ``ExternalChangeMonitor`` polls it every
/// ``pollInterval`` while it has subscribers, and delivers what it reports like posted changes.
///
/// Thread-safe; handlers are called one batch at a time, in posting order.
public final class StorageChangeNotifier: Sendable {
    /// How often the ``ExternalChangeMonitor`` is asked for other processes' commits, while anyone
    /// subscribes. Unused without a monitor.
    public let pollInterval: Duration
    let monitor: (any ExternalChangeMonitor)?

    private struct Subscriber {
        var entityName: String?
        var handler: @Sendable ([StorageChange]) -> Void
    }

    private struct State {
        var subscribers: [UInt64: Subscriber] = [:]
        var nextID: UInt64 = 0
        var pending: [StorageChange] = []
        /// Whether the change thread has this notifier in its queue already.
        var scheduled = false
    }

    /// Sound as `Sendable`: every handler is `@Sendable`, and the state never leaves the lock.
    private let state = Locked(State())

    /// A queue of posted changes longer than this is folded into one change per entity type
    /// (all keys), so a writer far ahead of the change thread keeps memory bounded.
    private static let foldThreshold = 256

    /// A notifier for changes made through its context only.
    public init() {
        monitor = nil
        pollInterval = .zero
    }

    /// A notifier that also reports the changes `monitor` notices, asking it every `pollInterval`
    /// while it has subscribers.
    public init(monitor: some ExternalChangeMonitor, pollInterval: Duration = .milliseconds(100)) {
        self.monitor = monitor
        self.pollInterval = max(pollInterval, .milliseconds(1))
    }

    /// Announces a committed change. Call it after the write committed, outside any lock the
    /// subscribers' reads need (they run on another thread, and a read waiting for that lock only
    /// delays them). Never blocks on subscribers, never throws.
    public func post(_ change: StorageChange) {
        let mustSignal = state.withLock { state -> Bool in
            if state.subscribers.isEmpty { return false }
            state.pending.append(change)
            if state.pending.count > Self.foldThreshold { state.pending = Self.fold(state.pending) }
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if mustSignal { ChangeDispatcher.shared.schedule(self) }
    }

    /// Announces a committed change to the records `storageKeys` of the type `entityName`, like
    /// ``post(_:)``; the set of keys is only built when someone subscribes, so a context may call
    /// this after every write at almost no cost.
    public func post(entityName: String, storageKeys: some Sequence<String>) {
        let mustSignal = state.withLock { state -> Bool in
            if state.subscribers.isEmpty { return false }
            state.pending.append(StorageChange(entityName: entityName, storageKeys: Set(storageKeys)))
            if state.pending.count > Self.foldThreshold { state.pending = Self.fold(state.pending) }
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if mustSignal { ChangeDispatcher.shared.schedule(self) }
    }

    /// Announces several committed changes at once, like ``post(_:)``: they are queued together,
    /// so subscribers receive them in one batch (a transaction over several entity types is
    /// heard of once). A context of another package that keeps transactions announces each
    /// commit with it.
    public func post(contentsOf changes: [StorageChange]) {
        if changes.isEmpty { return }
        let mustSignal = state.withLock { state -> Bool in
            if state.subscribers.isEmpty { return false }
            state.pending.append(contentsOf: changes)
            if state.pending.count > Self.foldThreshold { state.pending = Self.fold(state.pending) }
            if state.scheduled { return false }
            state.scheduled = true
            return true
        }
        if mustSignal { ChangeDispatcher.shared.schedule(self) }
    }

    /// Calls `handler` on DAOKit's change thread with every batch of changes posted from now on
    /// that may concern the entity type `entityName` (`nil`: every change), until the returned
    /// subscription is cancelled or released. The handler must return quickly: it delays every
    /// other subscriber of every context; hand real work to another thread.
    public func subscribe(
        entityName: String? = nil, _ handler: @escaping @Sendable ([StorageChange]) -> Void
    ) -> StorageChangeSubscription {
        let (id, first) = state.withLock { state -> (UInt64, Bool) in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = Subscriber(entityName: entityName, handler: handler)
            return (id, state.subscribers.count == 1)
        }
        if first, let monitor {
            monitor.begin()
            ChangeDispatcher.shared.startPolling(self)
        }
        return StorageChangeSubscription(notifier: self, id: id)
    }

    /// Whether an observation whose query failed with `error` waits for the store to come back
    /// (see ``ExternalChangeMonitor/observationOutlives(_:)``); `false` without a monitor.
    func observationOutlives(_ error: any Error) -> Bool {
        monitor?.observationOutlives(error) ?? false
    }

    /// Whether anyone subscribes: a context may skip working out what changed when nobody listens.
    public var hasSubscribers: Bool {
        state.withLock { !$0.subscribers.isEmpty }
    }

    func unsubscribe(_ id: UInt64) {
        let (removed, last) = state.withLock { state -> (Subscriber?, Bool) in
            let removed = state.subscribers.removeValue(forKey: id)
            return (removed, removed != nil && state.subscribers.isEmpty)
        }
        if last, let monitor {
            ChangeDispatcher.shared.stopPolling(self)
            monitor.end()
        }
        withExtendedLifetime(removed) {}  // the handler is released outside the lock
    }

    /// Hands the queued changes to the subscribers. Called on the change thread only.
    func deliverPending() {
        let changes = state.withLock { state -> [StorageChange] in
            state.scheduled = false
            defer { state.pending = [] }
            return state.pending
        }
        deliver(changes)
    }

    /// Asks the monitor and delivers what it found. Called on the change thread only.
    func poll() {
        guard let monitor else { return }
        let changes = monitor.changes()
        if !changes.isEmpty { deliver(changes) }
    }

    private func deliver(_ changes: [StorageChange]) {
        guard !changes.isEmpty else { return }
        let subscribers = state.withLock { Array($0.subscribers.values) }
        for subscriber in subscribers {
            guard let name = subscriber.entityName else {
                subscriber.handler(changes)
                continue
            }
            let concerning = changes.filter { $0.concerns(entityName: name) }
            if !concerning.isEmpty { subscriber.handler(concerning) }
        }
    }

    /// One change per entity type named in `changes` (all of its keys), or ``StorageChange/everything``
    /// when one of them names no type.
    private static func fold(_ changes: [StorageChange]) -> [StorageChange] {
        var names: [String] = []
        var seen = Set<String>()
        for change in changes {
            guard let name = change.entityName else { return [.everything] }
            if seen.insert(name).inserted { names.append(name) }
        }
        return names.map(StorageChange.entity)
    }
}

/// A subscription to a ``StorageChangeNotifier``: ends when cancelled or released.
public final class StorageChangeSubscription: Sendable {
    private let notifier: StorageChangeNotifier
    private let id: UInt64
    private let cancelled = Locked(false)

    init(notifier: StorageChangeNotifier, id: UInt64) {
        self.notifier = notifier
        self.id = id
    }

    /// Stops the handler from being called for changes posted after this returns (a batch being
    /// delivered at this moment may still reach it once). Calling it again does nothing.
    public func cancel() {
        let first = cancelled.withLock { cancelled -> Bool in
            defer { cancelled = true }
            return !cancelled
        }
        if first { notifier.unsubscribe(id) }
    }

    deinit {
        cancel()
    }
}
