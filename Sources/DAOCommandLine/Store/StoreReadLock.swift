import DAOKitStoreFormat

/// Holds the store's advisory lock shared while the tool reads, as the store's own readers do
/// (``StoreLock/withObserverLock(lockPath:fileSystem:patience:_:)``).
///
/// Writers hold `flock(LOCK_EX)` on `<directory>/.lock` for the whole of a write or a batch, so
/// holding it shared means `inspect`, `dump` and `verify` never see a batch half applied by a
/// live process, and never report its journal as unfinished. The lock file is opened read-only
/// and never created: these commands change nothing in the directory.
enum StoreReadLock {
    /// How long to wait for a writer in another process before giving up.
    static let patience: Duration = .seconds(10)

    /// Runs `body` holding the shared lock, or without it where the store has none to take.
    /// - Throws: ``UsageError`` when `directory` is not a directory; ``CommandFailure`` (exit
    ///   status 1: the command ran but could not finish) when another process keeps the store
    ///   locked longer than ``patience``, or when `.lock` is a link, FIFO or device, which the
    ///   store refuses to open over.
    static func withSharedLock<T>(directory: String, command: String, _ body: () throws -> T) throws -> T {
        let root = StoreScan.trimmed(directory)
        let files = try StoreScan.confinedFileSystem(directory, command: command)
        let lockPath = root + "/" + FileStoreLayout.lockFileName
        do {
            return try StoreLock.withObserverLock(lockPath: lockPath, fileSystem: files, patience: patience, body)
        } catch StoreLock.ObserverLockFailure.busy {
            throw CommandFailure(
                "dao \(command): \(directory) stayed locked by a writer for \(patience); try again when it is done")
        } catch let StoreLock.ObserverLockFailure.refused(error) {
            throw CommandFailure(
                "dao \(command): \(lockPath): \(error.reason); the store refuses to open until it is removed")
        }
    }
}
