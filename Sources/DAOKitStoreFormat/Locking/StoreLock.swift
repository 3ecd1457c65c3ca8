import DAOKitInternals
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
///
/// **Re-entry is refused.** A thread that already holds the lock, shared or exclusive, and asks
/// for it again gets a ``ReentrantLockRequest`` (which DAOKit reports as `StorageError` code `.reentrantCall`) and keeps the
/// lock it holds. It must never be granted: `pthread_rwlock_rdlock` fails (`EDEADLK`) for the
/// thread that holds the write lock, and the shared `flock` it would then take replaces the
/// exclusive one on the shared descriptor — another process could write in the middle of this
/// one's batch. `FileStorageContext` runs no user code while it holds the lock (ids, keys and
/// entity names are all worked out before), so only a bug in DAOKit could get here.
///
/// **No failure is ignored.** A `pthread_rwlock` call that fails to take the lock throws (an
/// `.io` error naming `.lock`). A failure to release it cannot leave the store in a state the
/// lock does not describe, so it stops the process (it means the lock's memory is corrupt). When
/// `flock(LOCK_UN)` fails, the descriptor is closed, which releases every lock it holds, and
/// `.lock` is opened again for the next taker (if that fails, the next taker tries again and
/// throws the error).
package final class StoreLock: @unchecked Sendable {
    // Unsafe state is confined here: the pointers are allocated once and never move. `readers`,
    // `writer` and `condition` are guarded by `mutex`. `descriptor` is used only by a thread that
    // holds `rwlock` for writing, or holds it for reading and `mutex` too; it is replaced only by
    // such a thread when no other thread is reading, so never while another thread uses it.
    private let rwlock: UnsafeMutablePointer<pthread_rwlock_t>
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The threads inside ``withSharedLock(examine:_:)`` after `examine`; the first one took the
    /// shared `flock`, and the last one to leave drops it. A handful at most.
    private var readers: [pthread_t] = []
    /// The thread inside ``withExclusiveLock(_:)``, if any.
    private var writer: pthread_t?
    /// What the reader that took the shared `flock` found, for every reader that joins it; valid
    /// while `readers` is not empty.
    private var condition = ReadCondition.consistent
    private let fileSystem: any FileSystem
    /// `.lock`, open; -1 after a failed release closed it and opening it again failed.
    private var descriptor: Int32
    package let path: String
    /// Whether the lock file could only be opened for reading: this process has no write access
    /// to the store, as far as `.lock` tells.
    package let isReadOnly: Bool

    /// Opens (creating if needed) the lock file; read-only when it exists but this process may not
    /// write it.
    /// - Throws: the error of opening it for writing when it cannot be opened at all, such as a
    ///   missing `.lock` in a directory this process may not create files in.
    package init(path: String, fileSystem: any FileSystem) throws(FileSystemError) {
        self.path = path
        self.fileSystem = fileSystem
        do throws(FileSystemError) {
            descriptor = try Self.openLockFile(path, readOnly: false, fileSystem: fileSystem)
            isReadOnly = false
        } catch  where error.deniesWriteAccess {
            // The writable open is the one worth reporting when the read-only one fails too: it
            // says why the store cannot be used (permission denied, read-only file system).
            guard let readOnly = try? Self.openLockFile(path, readOnly: true, fileSystem: fileSystem) else {
                throw error
            }
            descriptor = readOnly
            isReadOnly = true
        }
        rwlock = .allocate(capacity: 1)
        mutex = .allocate(capacity: 1)
        let rwlockResult = pthread_rwlock_init(rwlock, nil)
        let mutexResult = pthread_mutex_init(mutex, nil)
        if rwlockResult != 0 || mutexResult != 0 {
            if rwlockResult == 0 { pthread_rwlock_destroy(rwlock) }
            if mutexResult == 0 { pthread_mutex_destroy(mutex) }
            rwlock.deallocate()
            mutex.deallocate()
            try? fileSystem.close(descriptor, path: path)
            throw FileSystemError(
                operation: rwlockResult != 0 ? "pthread_rwlock_init" : "pthread_mutex_init",
                path: path, code: rwlockResult != 0 ? rwlockResult : mutexResult)
        }
    }

    deinit {
        // Closing the descriptor releases any flock still held.
        if descriptor >= 0 { try? fileSystem.close(descriptor, path: path) }
        pthread_rwlock_destroy(rwlock)
        rwlock.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Opens `.lock` — never through a symbolic link (which could create a file outside the
    /// store), and never blocking on a FIFO planted as `.lock`.
    /// - Throws: ``FileSystemError/notRegularFile(operation:path:)`` for a link, FIFO or device
    ///   planted as `.lock`, which is never locked through.
    private static func openLockFile(_ path: String, readOnly: Bool, fileSystem: any FileSystem) throws(FileSystemError)
        -> Int32
    {
        readOnly
            ? try fileSystem.openRegularFile(path, O_RDONLY)
            : try fileSystem.openRegularFile(path, O_RDWR | O_CREAT)
    }

    /// Runs `body` as the only reader or writer of the directory, in any process.
    /// - Throws: ``ReentrantLockRequest`` (which DAOKit reports as `StorageError` code `.reentrantCall`) when this thread
    ///   holds the lock already (shared or exclusive), keeping it as it is; the `pthread_rwlock`
    ///   or `flock` error when the lock cannot be taken; what `body` throws.
    package func withExclusiveLock<T>(_ body: () throws -> T) throws -> T {
        try refuseReentry()
        try take(pthread_rwlock_wrlock(rwlock), "pthread_rwlock_wrlock")
        defer { release(pthread_rwlock_unlock(rwlock), "pthread_rwlock_unlock") }
        withMutex { writer = pthread_self() }
        defer { withMutex { writer = nil } }
        try fileSystem.lock(try openDescriptor(), .exclusive, path: path)
        defer { releaseFileLock() }
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
    /// - Throws: as ``withExclusiveLock(_:)``, and what `examine` throws.
    package func withSharedLock<T>(examine: () throws -> ReadCondition?, _ body: (ReadCondition) throws -> T) throws
        -> T?
    {
        try refuseReentry()
        try take(pthread_rwlock_rdlock(rwlock), "pthread_rwlock_rdlock")
        defer { release(pthread_rwlock_unlock(rwlock), "pthread_rwlock_unlock") }
        lockMutex()
        if readers.isEmpty {
            do {
                try fileSystem.lock(try openDescriptor(), .shared, path: path)
                guard let found = try examine() else {
                    releaseFileLock()
                    unlockMutex()
                    return nil
                }
                condition = found
            } catch {
                if descriptor >= 0 { releaseFileLock() }
                unlockMutex()
                throw error
            }
        }
        readers.append(pthread_self())
        let shared = condition
        unlockMutex()
        defer {
            lockMutex()
            let me = pthread_self()
            if let index = readers.firstIndex(where: { pthread_equal($0, me) != 0 }) { readers.remove(at: index) }
            if readers.isEmpty { releaseFileLock() }
            unlockMutex()
        }
        return try body(shared)
    }

    // MARK: Helpers

    /// Throws ``ReentrantLockRequest`` when the calling thread holds the lock. Only the
    /// thread itself adds or removes itself as holder, so the answer cannot change under it.
    private func refuseReentry() throws {
        let me = pthread_self()
        let holds = withMutex {
            writer.map { pthread_equal($0, me) != 0 } == true || readers.contains { pthread_equal($0, me) != 0 }
        }
        if holds {
            throw ReentrantLockRequest(path: path)
        }
    }

    /// The open `.lock`, opened again first when a failed release closed it.
    private func openDescriptor() throws(FileSystemError) -> Int32 {
        if descriptor < 0 { descriptor = try Self.openLockFile(path, readOnly: isReadOnly, fileSystem: fileSystem) }
        return descriptor
    }

    /// Drops the `flock`. When `LOCK_UN` fails, closing the descriptor releases it (the kernel
    /// drops every `flock` of an open file description when its last descriptor closes), and
    /// `.lock` is opened again for the next taker; if that fails, the next taker tries again.
    private func releaseFileLock() {
        do throws(FileSystemError) {
            try fileSystem.lock(descriptor, .unlock, path: path)
        } catch {
            // close(2) releases the descriptor even when it reports an error.
            try? fileSystem.close(descriptor, path: path)
            descriptor = -1
            _ = try? openDescriptor()
        }
    }

    /// Throws the error of a `pthread_rwlock` call that did not take the lock.
    private func take(_ result: Int32, _ call: String) throws(FileSystemError) {
        if result != 0 { throw FileSystemError(operation: call, path: path, code: result) }
    }

    /// Stops the process when releasing a lock this thread holds fails: the lock's memory is
    /// corrupt, and going on could let two writers run at once.
    private func release(_ result: Int32, _ call: String) {
        if result != 0 { fatalError("DAOKit: \(call) failed for \(path): \(String(cString: strerror(result)))") }
    }

    private func lockMutex() {
        let result = pthread_mutex_lock(mutex)
        if result != 0 {
            fatalError("DAOKit: pthread_mutex_lock failed for \(path): \(String(cString: strerror(result)))")
        }
    }

    private func unlockMutex() {
        release(pthread_mutex_unlock(mutex), "pthread_mutex_unlock")
    }

    private func withMutex<T>(_ body: () -> T) -> T {
        lockMutex()
        defer { unlockMutex() }
        return body()
    }
}

/// A thread asked for a ``StoreLock`` it already holds; refused, and the lock it holds is kept.
package struct ReentrantLockRequest: Error, Sendable, CustomStringConvertible {
    /// The lock file.
    package let path: String

    package var description: String { "re-entrant lock request refused: this thread holds \(path) already" }
}
