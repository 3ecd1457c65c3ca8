import DAOKitInternals

/// The engine behind ``BaseDao``'s `observe` methods: one per stream. It subscribes to the
/// context's ``StorageChangeNotifier``, re-runs its query on ``BlockingExecutor``'s threads when a
/// relevant change arrives, and yields the result when it differs from the last one yielded.
///
/// **Coalescing.** At most one run is in flight per observation. Changes that arrive during a run
/// are merged and cause exactly one more run after it, so a burst of writes costs a few runs, and
/// the run after the last write always happens: the last state is always delivered. The stream
/// buffers only the newest element, so a slow consumer skips intermediate states too.
///
/// **Ending.** When the consumer stops (its task cancelled, the stream dropped, the loop left), the
/// stream's termination handler cancels the observation: it unsubscribes, yields nothing more, and
/// whatever it held is released once a run in flight returns. A run that throws ends the stream
/// with that error — unless the notifier's monitor says the failure passes by itself (a database
/// server restarting, see ``ExternalChangeMonitor/observationOutlives(_:)``): the observation then
/// stays subscribed and runs its query again, in full, after the next change it hears of, which
/// the monitor reports once the store is back.
final class LiveObservation<Value: Encodable & SendableMetatype>: @unchecked Sendable {
    // Sound as `Sendable`: `state` is only touched under its lock; `continuation` is `Sendable`;
    // `evaluate` and `isRelevant` are `@Sendable`. Only one thread runs `runLoop` at a time
    // (`State.running`), so results are yielded in order.

    /// What a run found.
    enum Outcome {
        /// The changes cannot have altered the result; nothing was read.
        case unchanged
        /// The result now, and the storage keys it holds (for the next run's shortcut).
        case result(Value, keys: Set<String>)
    }

    /// What the last yielded result was.
    struct Snapshot: Sendable {
        var fingerprint: ResultFingerprint?
        var keys: Set<String>
    }

    /// Runs the query. Its arguments are the changes since the last run (`nil`: unknown, or the
    /// first run) and the last result's snapshot (`nil` before the first).
    typealias Evaluate = @Sendable (_ changes: [StorageChange]?, _ last: Snapshot?) throws -> Outcome

    private struct State {
        var running = false
        var needsRun = false
        /// The changes not yet looked at; `nil` when unknown (run without shortcuts).
        var pending: [StorageChange]? = nil
        var cancelled = false
        var last: Snapshot?
        var subscription: StorageChangeSubscription?
    }

    private let continuation: AsyncThrowingStream<Value, any Error>.Continuation
    private let evaluate: Evaluate
    private let isRelevant: @Sendable (StorageChange) -> Bool
    /// Asked whether a failed run's error passes; `nil` when the context announces nothing.
    private let notifier: StorageChangeNotifier?
    private let state = Locked(State())

    private init(
        continuation: AsyncThrowingStream<Value, any Error>.Continuation,
        notifier: StorageChangeNotifier?,
        isRelevant: @escaping @Sendable (StorageChange) -> Bool,
        evaluate: @escaping Evaluate
    ) {
        self.continuation = continuation
        self.notifier = notifier
        self.isRelevant = isRelevant
        self.evaluate = evaluate
    }

    /// Starts an observation of the changes `notifier` announces for `entityName` that
    /// `isRelevant` accepts, and returns its stream. Without a notifier the stream delivers the
    /// first result only, and stays open until the consumer stops.
    static func start(
        notifier: StorageChangeNotifier?, entityName: String,
        isRelevant: @escaping @Sendable (StorageChange) -> Bool = { _ in true },
        evaluate: @escaping Evaluate
    ) -> AsyncThrowingStream<Value, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: Value.self, bufferingPolicy: .bufferingNewest(1))
        let observation = LiveObservation(
            continuation: continuation, notifier: notifier, isRelevant: isRelevant, evaluate: evaluate)
        continuation.onTermination = { _ in observation.cancel() }
        // Subscribe before the first run, so that a commit made while it reads is not missed: it
        // schedules another run.
        if let notifier {
            let subscription = notifier.subscribe(entityName: entityName) { [weak observation] changes in
                observation?.changed(changes)
            }
            let keep = observation.state.withLock { state -> Bool in
                if state.cancelled { return false }
                state.subscription = subscription
                return true
            }
            if !keep { subscription.cancel() }
        }
        observation.schedule(nil)
        return stream
    }

    /// Called on the change thread: schedules a run when a change may matter.
    private func changed(_ changes: [StorageChange]) {
        let relevant = changes.filter(isRelevant)
        if !relevant.isEmpty { schedule(relevant) }
    }

    private func schedule(_ changes: [StorageChange]?) {
        let mustStart = state.withLock { state -> Bool in
            if state.cancelled { return false }
            if let changes, state.last != nil {
                state.pending?.append(contentsOf: changes)
            } else {
                state.pending = nil
            }
            state.needsRun = true
            if state.running { return false }
            state.running = true
            return true
        }
        if mustStart { BlockingExecutor.shared.submit(.observation) { self.runLoop() } }
    }

    private func runLoop() {
        while true {
            let next = state.withLock { state -> (changes: [StorageChange]?, last: Snapshot?)? in
                guard !state.cancelled, state.needsRun else {
                    state.running = false
                    return nil
                }
                state.needsRun = false
                defer { state.pending = [] }
                return (state.pending, state.last)
            }
            guard let next else { return }
            let outcome: Outcome
            do {
                outcome = try evaluate(next.changes, next.last)
            } catch {
                if notifier?.observationOutlives(error) == true {
                    // The store is away: wait for a change (the monitor reports one when it is
                    // back), and then run in full, since changes may have gone unheard meanwhile.
                    state.withLock { $0.pending = nil }
                    continue
                }
                continuation.finish(throwing: error)
                cancel()
                state.withLock { $0.running = false }
                return
            }
            guard case .result(let value, let keys) = outcome else { continue }
            let fingerprint = ResultFingerprint(value)
            let deliver = state.withLock { state -> Bool in
                if state.cancelled { return false }
                let isNew = state.last == nil || fingerprint == nil || state.last?.fingerprint != fingerprint
                state.last = Snapshot(fingerprint: fingerprint, keys: keys)
                return isNew
            }
            if deliver { continuation.yield(value) }
        }
    }

    /// Stops the observation: no further run starts, nothing more is yielded, and the subscription
    /// ends. Safe to call more than once and from any thread.
    func cancel() {
        let subscription = state.withLock { state -> StorageChangeSubscription? in
            state.cancelled = true
            defer { state.subscription = nil }
            return state.subscription
        }
        subscription?.cancel()
        continuation.finish()
    }
}
