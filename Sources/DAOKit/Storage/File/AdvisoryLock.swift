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
///
/// A process without write access to the store (a read-only directory, a read-only mount, a store
/// owned by another user) cannot open `.lock` for writing; it opens it read-only instead, because
/// `flock(2)` works on any open descriptor. Such a process still takes part in the locking — so it
/// never reads a batch that a writer with more rights has half applied — and its own writes fail
/// on the first file they try to change, with the system's error and the path.
final class StoreLock: @unchecked Sendable {
    // Unsafe state is confined here: the pointers are allocated once and never move; `readers`
    // is guarded by `mutex`.
    private let rwlock: UnsafeMutablePointer<pthread_rwlock_t>
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var readers = 0
    /// What the reader that took the shared `flock` found, for every reader that joins it; valid
    /// while `readers > 0`, guarded by `mutex`.
    private var condition = ReadCondition.consistent
    private let fileSystem: any FileSystem
    private let descriptor: Int32
    let path: String
    /// Whether the lock file could only be opened for reading: this process has no write access
    /// to the store, as far as `.lock` tells.
    let isReadOnly: Bool

    /// Opens (creating if needed) the lock file; read-only when it exists but this process may not
    /// write it.
    /// - Throws: the error of opening it for writing when it cannot be opened at all, such as a
    ///   missing `.lock` in a directory this process may not create files in.
    init(path: String, fileSystem: any FileSystem) throws(FileSystemError) {
        self.path = path
        self.fileSystem = fileSystem
        do throws(FileSystemError) {
            // Never through a symbolic link (which could create a file outside the store), and
            // never blocking on a FIFO planted as `.lock`.
            descriptor = try fileSystem.open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o644)
            isReadOnly = false
        } catch where error.deniesWriteAccess {
            // The writable open is the one worth reporting when the read-only one fails too: it
            // says why the store cannot be used (permission denied, read-only file system).
            guard let readOnly = try? fileSystem.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0) else { throw error }
            descriptor = readOnly
            isReadOnly = true
        }
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
    /// - Parameter examine: called by the thread that takes the shared `flock`, with it held and
    ///   before any other reader proceeds, to decide from the journal what readers may rely on.
    ///   When it returns `nil` (a journal needs recovery) the lock is dropped and `withSharedLock`
    ///   returns `nil` without running `body`, so the caller can recover under the exclusive lock
    ///   and try again. Otherwise its answer is passed to `body`, and to the body of every other
    ///   thread that reads under the same `flock`: the journal cannot change while it is held.
    func withSharedLock<T>(examine: () throws -> ReadCondition?, _ body: (ReadCondition) throws -> T) throws -> T? {
        pthread_rwlock_rdlock(rwlock)
        defer { pthread_rwlock_unlock(rwlock) }
        pthread_mutex_lock(mutex)
        if readers == 0 {
            do {
                try fileSystem.lock(descriptor, .shared, path: path)
                guard let found = try examine() else {
                    try? fileSystem.lock(descriptor, .unlock, path: path)
                    pthread_mutex_unlock(mutex)
                    return nil
                }
                condition = found
            } catch {
                try? fileSystem.lock(descriptor, .unlock, path: path)
                pthread_mutex_unlock(mutex)
                throw error
            }
        }
        readers += 1
        let shared = condition
        pthread_mutex_unlock(mutex)
        defer {
            pthread_mutex_lock(mutex)
            readers -= 1
            if readers == 0 { try? fileSystem.lock(descriptor, .unlock, path: path) }
            pthread_mutex_unlock(mutex)
        }
        return try body(shared)
    }
}
