import DAOKit

extension FileStorageContext {
    /// How often a file store's notifier looks for other processes' commits while anyone observes.
    static let changePollInterval = Duration.milliseconds(100)

    /// Announces this context's commits as they happen, and — while anyone subscribes — the
    /// commits of other processes and other contexts on the same directory, found by tailing the
    /// store's change log every 100 ms: such a commit reaches an observer within 250 ms (the poll
    /// interval plus the observer's re-run, with room for a loaded machine).
    /// A transaction's handle has none: its writes are announced once, when it commits.
    public var changeNotifier: StorageChangeNotifier? { handleTransaction == nil ? notifier : nil }
}
