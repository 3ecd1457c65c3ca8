import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Readers–writer locking of one store directory, within the process and across processes.
///
/// Within the process a `pthread_rwlock` lets reads run together and writes run alone. Across
/// processes, `flock(2)` on `<directory>/.lock` does the same: a writer holds it exclusively, and
/// readers hold it shared so that they never see another process's batch half applied. `flock`
/// locks belong to the open file description, which all threads share, so the process takes the
/// shared `flock` once for however many of its threads are reading, and drops it with the last one.
final class StoreLock: @unchecked Sendable {
    // Unsafe state is confined here: the pointers are allocated once and never move; `readers`
    // is guarded by `mutex`.
    private let rwlock: UnsafeMutablePointer<pthread_rwlock_t>
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var readers = 0
    private let fileSystem: any FileSystem
    private let descriptor: Int32
    let path: String

    /// Opens (creating if needed) the lock file.
    init(path: String, fileSystem: any FileSystem) throws(FileSystemError) {
        self.path = path
        self.fileSystem = fileSystem
        descriptor = try fileSystem.open(path, O_RDWR | O_CREAT, 0o644)
        rwlock = .allocate(capacity: 1)
        pthread_rwlock_init(rwlock, nil)
        mutex = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        // Closing the descriptor releases any flock still held.
        try? fileSystem.close(descriptor, path: path)
        pthread_rwlock_destroy(rwlock)
        rwlock.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` as the only reader or writer of the directory, in any process.
    func withExclusiveLock<T>(_ body: () throws -> T) throws -> T {
        pthread_rwlock_wrlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        try fileSystem.lock(descriptor, .exclusive, path: path)
        defer { try? fileSystem.lock(descriptor, .unlock, path: path) }
        return try body()
    }

    /// Runs `body` while no writer runs, in any process.
    ///
    /// - Parameter isConsistent: called by the thread that takes the shared `flock`, with it held
    ///   and before any other reader proceeds; when it returns `false` (a journal needs recovery)
    ///   the lock is dropped and `withSharedLock` returns `nil` without running `body`, so the
    ///   caller can recover under the exclusive lock and try again.
    func withSharedLock<T>(isConsistent: () throws -> Bool, _ body: () throws -> T) throws -> T? {
        pthread_rwlock_rdlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        pthread_mutex_lock(mutex)
        if readers == 0 {
            do {
                try fileSystem.lock(descriptor, .shared, path: path)
                guard try isConsistent() else {
                    try? fileSystem.lock(descriptor, .unlock, path: path)
                    pthread_mutex_unlock(mutex)
                    return nil
                }
            } catch {
                try? fileSystem.lock(descriptor, .unlock, path: path)
                pthread_mutex_unlock(mutex)
                throw error
            }
        }
        readers += 1
        pthread_mutex_unlock(mutex)
        defer {
            pthread_mutex_lock(mutex)
            readers -= 1
            if readers == 0 { try? fileSystem.lock(descriptor, .unlock, path: path) }
            pthread_mutex_unlock(mutex)
        }
        return try body()
    }
}
