import DAOKitInternals
import DAOKitStoreFormat
import DAOKitTestSupport
import Foundation
import Testing

@testable import DAOKit
@testable import DAOKitFileStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// User code that calls the file store again in the middle of one of its calls (issue 14,
/// finding 7), and the store's lock when it is asked for twice by one thread or cannot be released.
///
/// The danger: `pthread_rwlock_rdlock` fails with `EDEADLK` for the thread that holds the write
/// lock; had that failure been ignored, the nested read's shared `flock` would replace the
/// writer's exclusive one and its `LOCK_UN` drop it, so another process could write in the middle
/// of the batch. Whether that happens is asked of a child process (`DAOKitCrashWriter trylock`)
/// from inside the batch's own writes.
@Suite("File store re-entrancy")
struct FileReentrancyTests {
    /// Saving notes whose `id` getter counts the store: the nested count runs, sees the store as
    /// it was, and the batch keeps the lock to itself from its first write to its last.
    @Test(arguments: SaveMode.allCases, [1, 3])
    func anIDGetterThatReadsTheStoreDuringASaveNeitherBreaksNorUnlocksIt(_ mode: SaveMode, _ size: Int) throws {
        try FileTestDirectory.with { directory in
            let fileSystem = ObservedFileSystem()
            let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            let existing = (0..<size).map { CallbackNote(key: "n\($0)", text: "old") }
            if mode == .update { try context.save(existing) }
            let before = try context.count(CallbackNote.self)

            let counts = Locked<[Int]>([])
            let callback = Callback { counts.withLock { $0.append((try? context.count(CallbackNote.self)) ?? -1) } }
            let probes = Locked<[String]>([])
            fileSystem.onWrite { path in
                guard !path.hasSuffix("/.lock") else { return }
                probes.withLock { $0.append(tryLockFromAnotherProcess(directory)) }
            }
            let notes = (0..<size).map { CallbackNote(key: "n\($0)", text: "new", callback: callback) }
            try context.save(notes, mode: mode)
            fileSystem.onWrite(nil)

            #expect(!counts.withLock { $0 }.isEmpty, "the id getter never ran")
            #expect(counts.withLock { $0 }.allSatisfy { $0 == before }, "nested counts: \(counts.withLock { $0 })")
            let seen = probes.withLock { $0 }
            #expect(!seen.isEmpty, "the batch wrote nothing")
            #expect(seen.allSatisfy { $0 == "busy" }, "another process took the lock during the save: \(seen)")
            #expect(tryLockFromAnotherProcess(directory) == "acquired", "the save left the lock held")
            #expect(
                try context.fetchAll(CallbackNote.self).map(\.text).sorted() == Array(repeating: "new", count: size))
        }
    }

    /// The same note, inserted while it is stored already: the nested count runs before the lock
    /// is taken, and the insert fails as it should, leaving the lock free.
    @Test func aFailingInsertWithAReentrantIDGetterLeavesTheStoreAndTheLockAsTheyWere() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            try context.save([CallbackNote(key: "a", text: "old")])
            let callback = Callback { _ = try? context.fetchAll(CallbackNote.self) }
            let error = try #require(throws: StorageError.self) {
                try context.save([CallbackNote(key: "a", text: "new", callback: callback)], mode: .insert)
            }
            #expect(error.kind == .duplicateID)
            #expect(try context.fetch(CallbackNote.self, id: "a")?.text == "old")
            #expect(tryLockFromAnotherProcess(directory) == "acquired")
        }
    }

    /// The lock itself, asked for again by the thread that holds it — shared or exclusive, inside
    /// shared or exclusive — refuses (``ReentrantLockRequest``, which the context reports as
    /// `.reentrantCall`) and keeps what the thread holds.
    @Test func theStoreLockRefusesEveryNestedRequestAndKeepsWhatTheThreadHolds() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            let lock = context.lock
            let outcome = runOnAThreadOfItsOwn(within: .seconds(30)) {
                var seen: [String] = []
                func nested(_ body: () throws -> Void) -> String {
                    do {
                        try body()
                        return "granted"
                    } catch is ReentrantLockRequest {
                        return "refused"
                    } catch {
                        return "failed: \(error)"
                    }
                }
                try lock.withExclusiveLock {
                    seen.append(nested { _ = try lock.withSharedLock(examine: { .consistent }) { _ in } })
                    seen.append(tryLockFromAnotherProcess(directory))
                    seen.append(nested { try lock.withExclusiveLock {} })
                    seen.append(tryLockFromAnotherProcess(directory))
                }
                _ = try lock.withSharedLock(examine: { .consistent }) { _ in
                    seen.append(nested { _ = try lock.withSharedLock(examine: { .consistent }) { _ in } })
                    seen.append(nested { try lock.withExclusiveLock {} })
                    seen.append(tryLockFromAnotherProcess(directory))
                }
                seen.append(tryLockFromAnotherProcess(directory))
                return seen
            }
            #expect(
                outcome == .finished(["refused", "busy", "refused", "busy", "refused", "refused", "busy", "acquired"]))
            // Usable as before.
            try context.save([FileNote(id: "a", text: "a")])
            #expect(try context.notes() == [FileNote(id: "a", text: "a")])
        }
    }

    /// A refused nested request names `.lock`, so the report points at the store.
    @Test func theRefusalNamesTheLockFile() throws {
        try FileTestDirectory.with { directory in
            let context = try FileStorageContext(directory: directory.url)
            let error = try #require(throws: ReentrantLockRequest.self) {
                try context.lock.withExclusiveLock { try context.lock.withExclusiveLock {} }
            }
            #expect(error.path == directory.path + "/.lock")
            #expect(String(describing: error).contains("refused"))
            // What the context makes of it.
            let mapped = try #require(throws: StorageError.self) {
                try context.mapErrors(entityName: nil, key: nil) {
                    try context.withWriteLock { try context.withWriteLock {} }
                }
            }
            #expect(mapped.kind == .reentrantCall)
            #expect(mapped.location == directory.path + "/.lock")
        }
    }

    /// `flock(LOCK_UN)` failing is not ignored: the descriptor is closed, which releases the lock
    /// for other processes, and `.lock` is opened again so that the store goes on working.
    @Test(arguments: [false, true])
    func aFailedUnlockStillReleasesTheLock(_ batch: Bool) throws {
        try FileTestDirectory.with { directory in
            let fileSystem = ObservedFileSystem()
            let context = try FileStorageContext(directory: directory.url, fileSystem: fileSystem)
            fileSystem.failUnlocks(true)
            let notes = (0..<(batch ? 3 : 1)).map { FileNote(id: "n\($0)", text: "t") }
            try context.save(notes)
            #expect(
                tryLockFromAnotherProcess(directory) == "acquired", "the store kept its lock after a failed LOCK_UN")
            #expect(try context.notes() == notes)  // a read, whose release fails too
            #expect(tryLockFromAnotherProcess(directory) == "acquired")
            fileSystem.failUnlocks(false)
            try context.save([FileNote(id: "later", text: "t")])
            #expect(try context.count(FileNote.self) == notes.count + 1)
            #expect(tryLockFromAnotherProcess(directory) == "acquired")
        }
    }
}

// MARK: - Support

/// What `DAOKitCrashWriter trylock` says about the store's lock right now: `acquired` when no
/// other process holds it, `busy` when one does.
func tryLockFromAnotherProcess(_ directory: FileTestDirectory) -> String {
    do {
        let child = try FileChildProcess(arguments: ["trylock", directory.path])
        let (status, output, errors) = child.finish()
        return status == 0 ? output.joined(separator: "\n") : "exit \(status): \(errors)"
    } catch {
        return "could not run the child: \(error)"
    }
}

/// A ``FileSystem`` that forwards to the real one, runs a hook before each `write(2)`, and can
/// make `flock(LOCK_UN)` fail without releasing anything.
final class ObservedFileSystem: FileSystem, @unchecked Sendable {
    /// Confined once, by ``confined(to:)``, before the store's first call below its directory.
    private var base: any FileSystem = POSIXFileSystem()
    private let hooks = Locked<(onWrite: ((String) -> Void)?, failUnlocks: Bool)>((nil, false))

    func confined(to root: String) throws(FileSystemError) -> any FileSystem {
        base = try base.confined(to: root)
        return self
    }

    func onWrite(_ hook: ((String) -> Void)?) { hooks.withLock { $0.onWrite = hook } }
    func failUnlocks(_ fail: Bool) { hooks.withLock { $0.failUnlocks = fail } }

    func open(_ path: String, _ flags: Int32, _ mode: mode_t) throws(FileSystemError) -> Int32 {
        try base.open(path, flags, mode)
    }
    func close(_ fd: Int32, path: String) throws(FileSystemError) { try base.close(fd, path: path) }
    func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        try base.read(fd, into: buffer, path: path)
    }
    func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws(FileSystemError) -> Int {
        hooks.withLock { $0.onWrite }?(path)
        return try base.write(fd, bytes, path: path)
    }
    func status(_ fd: Int32, path: String) throws(FileSystemError) -> FileStatus { try base.status(fd, path: path) }
    func status(atPath path: String) throws(FileSystemError) -> FileStatus? { try base.status(atPath: path) }
    func truncate(_ fd: Int32, length: Int, path: String) throws(FileSystemError) {
        try base.truncate(fd, length: length, path: path)
    }
    func fsync(_ fd: Int32, path: String) throws(FileSystemError) { try base.fsync(fd, path: path) }
    func syncFileSystem(_ fd: Int32, path: String) throws(FileSystemError) -> Bool {
        try base.syncFileSystem(fd, path: path)
    }
    func rename(_ source: String, _ destination: String) throws(FileSystemError) {
        try base.rename(source, destination)
    }
    func unlink(_ path: String) throws(FileSystemError) { try base.unlink(path) }
    func open(_ name: String, in directory: Int32, _ flags: Int32, _ mode: mode_t, path: String) throws(FileSystemError)
        -> Int32
    {
        try base.open(name, in: directory, flags, mode, path: path)
    }
    func rename(_ source: String, to destination: String, in directory: Int32, path: String) throws(FileSystemError) {
        try base.rename(source, to: destination, in: directory, path: path)
    }
    func unlink(_ name: String, in directory: Int32, path: String) throws(FileSystemError) {
        try base.unlink(name, in: directory, path: path)
    }
    func makeDirectory(_ path: String) throws(FileSystemError) { try base.makeDirectory(path) }
    func removeDirectory(_ path: String) throws(FileSystemError) { try base.removeDirectory(path) }
    func contentsOfDirectory(_ path: String) throws(FileSystemError) -> [String] { try base.contentsOfDirectory(path) }
    func lock(_ fd: Int32, _ request: AdvisoryLockRequest, path: String) throws(FileSystemError) {
        if request == .unlock && hooks.withLock({ $0.failUnlocks }) {
            throw FileSystemError(operation: "flock", path: path, code: EIO)
        }
        try base.lock(fd, request, path: path)
    }
}
