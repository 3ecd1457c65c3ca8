/// Notices writes that reach a store without going through this process's context — another
/// process committing to the same files or database — for a ``StorageChangeNotifier``.
///
/// A notifier created with a monitor calls it only while it has subscribers, so a store nobody
/// observes is never polled:
/// - ``begin()`` on the thread that subscribes the first observer, before that call returns, so
///   that a commit made after an observation started is never mistaken for one made before;
/// - ``changes()`` on DAOKit's change thread, every ``StorageChangeNotifier/pollInterval``, until
///   the last subscriber leaves; what it returns is delivered like a posted change;
/// - ``end()`` once the last subscriber has left (on whichever thread cancelled it).
///
/// `changes()` runs on the thread that also delivers every context's posted changes, so it must
/// be quick and must not wait for a lock another process may hold for long: check a counter
/// (`PRAGMA data_version`, a file's size), do not read records. Announcing more than changed is
/// correct (observers re-run and find their results equal); announcing less loses updates.
///
/// The file store's monitor tails its change log (`FileStorageContext`); a SQLite context would
/// compare `PRAGMA data_version` with the value it saw last and return ``StorageChange/everything``
/// when it moved.
public protocol ExternalChangeMonitor: Sendable {
    /// Remembers the store's current state: only commits after this call count as changes.
    func begin()
    /// The changes other processes committed since ``begin()`` or the previous call; empty when none.
    func changes() -> [StorageChange]
    /// Forgets the state: no subscriber is left. ``begin()`` is called again for the next one.
    func end()
    /// Whether an observation whose query failed with `error` stays open rather than ending with
    /// it: `true` for a failure that passes by itself, such as a database server that is
    /// restarting or out of reach. The observation then waits, and runs its query again, in full,
    /// after the next change ``changes()`` reports — so a monitor that says `true` must report
    /// ``StorageChange/everything`` once the store may answer again (with a pause that grows while
    /// it keeps failing), or the observation waits for the next write. Called on the thread of the
    /// failed query. The default, `false`, ends observations on every error.
    func observationOutlives(_ error: any Error) -> Bool
}

extension ExternalChangeMonitor {
    /// No failure is passing: an observation ends with the first error its query throws.
    public func observationOutlives(_ error: any Error) -> Bool { false }
}
