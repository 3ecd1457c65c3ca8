#if canImport(Glibc)
    import DAOKitInternals
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension StoreLock {
    /// Why ``withObserverLock(lockPath:fileSystem:patience:_:)`` gave up.
    package enum ObserverLockFailure: Error, Equatable {
        /// A writer kept the store locked for longer than the patience allowed.
        case busy
        /// `.lock` is a link, FIFO or device: the store refuses to open over it, and so does this.
        case refused(FileSystemError)
    }

    /// Runs `body` holding the store's lock shared, as the store's readers do, for a process that
    /// only looks at the store (the `dao` tool): `.lock` is opened read-only and never created,
    /// and a writer is waited for at most `patience`. Without a `.lock` (no process ever opened
    /// the store, so none can be writing), or when it cannot be opened for a reason of the
    /// system's (then the lock file is not the observer's to fix), `body` runs without the lock.
    /// - Throws: ``ObserverLockFailure``; what `body` throws.
    package static func withObserverLock<T>(
        lockPath: String, fileSystem: any FileSystem, patience: Duration,
        _ body: () throws -> T
    ) throws -> T {
        let descriptor: Int32
        do throws(FileSystemError) {
            descriptor = try fileSystem.openRegularFile(lockPath, O_RDONLY)
        } catch  where error.refusal != nil {
            throw ObserverLockFailure.refused(error)
        } catch {
            return try body()
        }
        defer { try? fileSystem.close(descriptor, path: lockPath) }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: patience)
        while flock(descriptor, LOCK_SH | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { return try body() }
            guard clock.now < deadline else { throw ObserverLockFailure.busy }
            usleep(20_000)
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
