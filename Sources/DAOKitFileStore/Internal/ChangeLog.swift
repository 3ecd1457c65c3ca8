import DAOKit
import DAOKitInternals
import DAOKitStoreFormat
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The store-wide record of which records writes changed, that keeps every process's query cache
/// coherent with the files (`<directory>/.changes`).
///
/// **Layout.** Lines of text, appended, each `<entity directory>/<record file name>`, or
/// `<entity directory>/*` when every record of the entity changed (`deleteAll`, a rolled-back
/// batch). Its length is the store's change counter: it only grows, one line per changed record,
/// until a writer replaces it with an empty file (``maximumLength``) by renaming over it.
///
/// **Protocol.** Every write appends its lines under the exclusive lock *before* it changes a
/// record, so a reader that holds the shared lock never sees a changed record without its line (a
/// batch that then fails or is rolled back leaves lines for records that did not change, which
/// only makes readers reread them). A reader keeps the file open and remembers how much it has
/// read: under the shared lock, `fstat` tells whether the file grew (read the new lines, reread
/// those records) or was replaced (its link count is 0: reread everything). The file is not made
/// durable: it only has to be right for processes running at the same time, and none outlives a
/// crash of the machine.
struct ChangeLog {
    /// The log past this many bytes is replaced by an empty one: every cache then rereads what it
    /// holds, once; about 8,000 changed records.
    static let maximumLength = 256 * 1024

    let path: String
    let fileSystem: any FileSystem
    /// `.changes` kept open between appends; shared by the copies of this log.
    private let appender: ChangeLogAppender

    init(rootPath: String, fileSystem: any FileSystem) {
        path = rootPath + "/" + FileStoreLayout.changeLogFileName
        self.fileSystem = fileSystem
        appender = ChangeLogAppender(path: path, fileSystem: fileSystem)
    }

    /// Appends the lines of a write about to change `fileNames` of the entity directory
    /// `directoryName`. Call under the exclusive lock, before the change.
    /// - Returns: where the lines are in the file, or `nil` when the log was restarted instead.
    @discardableResult
    func append(directoryName: String, fileNames: some Collection<String>) throws(FileSystemError) -> Range<Int>? {
        // The lines' bytes, appended straight into one buffer of the right size: building them as a
        // `String` and copying that into `Data` made this append cost more than twice as much.
        let directory = directoryName.utf8
        var bytes: [UInt8] = []
        bytes.reserveCapacity(fileNames.reduce(0) { $0 + directory.count + $1.utf8.count + 2 })
        for name in fileNames {
            bytes.append(contentsOf: directory)
            bytes.append(UInt8(ascii: "/"))
            bytes.append(contentsOf: name.utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        return try append(bytes)
    }

    /// Appends the lines of a write about to change, in each entity directory named, the record
    /// files named with it (a transaction over several types, or its rollback), all in one append.
    /// Call under the exclusive lock, before the change.
    /// - Returns: as ``append(directoryName:fileNames:)``.
    @discardableResult
    func append(records: [(directoryName: String, fileNames: [String])]) throws(FileSystemError) -> Range<Int>? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(
            records.reduce(0) { total, group in
                total + group.fileNames.reduce(0) { $0 + group.directoryName.utf8.count + $1.utf8.count + 2 }
            })
        for (directoryName, fileNames) in records {
            for name in fileNames {
                bytes.append(contentsOf: directoryName.utf8)
                bytes.append(UInt8(ascii: "/"))
                bytes.append(contentsOf: name.utf8)
                bytes.append(UInt8(ascii: "\n"))
            }
        }
        if bytes.isEmpty { return nil }
        return try append(bytes)
    }

    /// Appends the line of a write about to change every record of the entity directory
    /// `directoryName` (`deleteAll`, `reset`). Call under the exclusive lock, before the change.
    /// - Returns: as ``append(directoryName:fileNames:)``.
    @discardableResult
    func appendEveryRecord(directoryName: String) throws(FileSystemError) -> Range<Int>? {
        try append(Array((directoryName + "/*\n").utf8))
    }

    private func append(_ lines: [UInt8]) throws(FileSystemError) -> Range<Int>? {
        let appended = try appender.append(lines, maximumLength: Self.maximumLength)
        if appended == nil { try restart() }
        return appended
    }

    /// Replaces the log with an empty file, by renaming one over it: readers find their open file
    /// unlinked and reread everything they hold.
    private func restart() throws(FileSystemError) {
        let fresh = path + FileStoreLayout.changeLogReplacementSuffix
        try fileSystem.writeFile(fresh, Data(), sync: false)
        try fileSystem.rename(fresh, path)
    }
}

/// The writing end of the ``ChangeLog``: `.changes` opened once and kept open between appends, so
/// that an append costs an `fstat` and a `write` instead of also an `open` and a `close` (two of
/// the 22 system calls a single persist made).
///
/// Why the kept file is still `.changes` when an append uses it: every append holds the store's
/// exclusive lock, and `fstat`s the kept descriptor for the length anyway, which also gives its
/// link count. A log that a writer in any process restarted (``ChangeLog``'s rename of an empty
/// file over it), or that anything else removed or replaced, has a link count of 0: the
/// descriptor is dropped and the path opened again, as every append did before — refusing a link
/// or anything but a regular file there, never following it. This is the check the readers'
/// ``ChangeLogReader`` and the journal's `JournalProbe` make on their kept descriptors, and it
/// rests on the same ground: nobody renames the store's own files to other names while it is open.
private final class ChangeLogAppender: Sendable {
    let path: String
    let fileSystem: any FileSystem
    /// The kept descriptor; `nil` before the first append and after a failure or restart. Its
    /// `Sendable` conformance is sound: the state is a plain integer, only touched under the lock.
    private let descriptor = Locked<Int32?>(nil)

    init(path: String, fileSystem: any FileSystem) {
        self.path = path
        self.fileSystem = fileSystem
    }

    deinit {
        if let fd = descriptor.withLock({ $0 }) { try? fileSystem.close(fd, path: path) }
    }

    /// Appends `bytes`, unless the log would then pass `maximumLength`: then it appends nothing,
    /// lets go of the file (the caller replaces it) and returns `nil`. Call under the store's
    /// exclusive lock.
    /// - Returns: where the bytes are in the file.
    func append(_ bytes: [UInt8], maximumLength: Int) throws(FileSystemError) -> Range<Int>? {
        let result: Result<Range<Int>?, FileSystemError> = descriptor.withLock { descriptor in
            do throws(FileSystemError) {
                return .success(try append(bytes, maximumLength: maximumLength, keeping: &descriptor))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private func append(_ bytes: [UInt8], maximumLength: Int, keeping descriptor: inout Int32?) throws(FileSystemError)
        -> Range<Int>?
    {
        let (fd, length) = try openLog(keeping: &descriptor)
        if length + bytes.count > maximumLength {
            drop(&descriptor)
            return nil
        }
        do throws(FileSystemError) {
            try fileSystem.writeAll(fd, bytes, path: path)
        } catch {
            // A full disk can take part of the lines (the last block's slack) before refusing the
            // rest: cut them off (truncating needs no space), or the next append would glue its
            // first line to the torn one and readers would miss a change. Whatever the failed
            // write left, the next append starts again from the path.
            try? fileSystem.truncate(fd, length: length, path: path)
            drop(&descriptor)
            throw error
        }
        return length..<(length + bytes.count)
    }

    /// The kept descriptor if it still is `.changes`, else the path opened again; and the log's
    /// length, from the `fstat` that checks either (no other writer appends while this one
    /// holds the exclusive lock).
    private func openLog(keeping descriptor: inout Int32?) throws(FileSystemError) -> (fd: Int32, length: Int) {
        if let fd = descriptor {
            let status: FileStatus
            do throws(FileSystemError) {
                status = try fileSystem.status(fd, path: path)
            } catch {
                drop(&descriptor)
                throw error
            }
            if status.linkCount > 0 { return (fd, status.size) }
            drop(&descriptor)
        }
        let (fd, status) = try fileSystem.openRegularFileWithStatus(path, O_WRONLY | O_APPEND | O_CREAT)
        descriptor = fd
        return (fd, status.size)
    }

    /// Closes the kept descriptor, once: closing it again could close one another thread has
    /// opened since.
    private func drop(_ descriptor: inout Int32?) {
        if let fd = descriptor { try? fileSystem.close(fd, path: path) }
        descriptor = nil
    }
}

/// A reader's position in the ``ChangeLog``: the open file and how much of it has been read.
/// Owned by one cache and used under its lock (and the store's shared or exclusive lock).
final class ChangeLogReader {
    /// What changed since the last look.
    enum Changes {
        /// Nothing.
        case none
        /// These records (`nil` file name: every record of that entity directory).
        case records([(directoryName: String, fileName: String?)])
        /// Unknown: the log was replaced, or could not be read. Everything must be reread.
        case everything
    }

    private let log: ChangeLog
    private var fd: Int32?
    private var position = 0
    /// Whether the last look found no log: a store no write has logged to yet. A log that appears
    /// later holds only changes made since (a writer logs before it changes a record), so it is
    /// then read from its start.
    private var sawNoLog = false

    init(_ log: ChangeLog) {
        self.log = log
    }

    deinit {
        if let fd { try? log.fileSystem.close(fd, path: log.path) }
    }

    /// Forgets everything read: the next ``changes()`` answers ``Changes/everything``.
    func reset() {
        if let fd { try? log.fileSystem.close(fd, path: log.path) }
        fd = nil
        position = 0
        sawNoLog = false
    }

    /// Starts reading at the log's current end: the next ``changes()`` answers what was appended
    /// after now (everything, when the log cannot be opened). Call under the store's lock.
    func startAtEnd() {
        reset()
        let opened: Int32?
        do {
            opened = try openIfPresent()
        } catch {
            return
        }
        guard let opened else {
            // No log yet: one that appears holds only changes made from now on.
            sawNoLog = true
            return
        }
        let end = lseek(opened, 0, SEEK_END)
        guard end >= 0 else {
            try? log.fileSystem.close(opened, path: log.path)
            return
        }
        fd = opened
        position = Int(end)
    }

    /// What the log says changed since the last call. Call under the store's lock.
    func changes() -> Changes {
        do {
            guard let fd else {
                guard let opened = try openIfPresent() else {
                    // No log yet: nothing was written since the last look, if there was one.
                    defer { sawNoLog = true }
                    return sawNoLog ? .none : .everything
                }
                fd = opened
                let logged = try readAll(opened)
                position = logged.count
                if sawNoLog {
                    // The log appeared since the last look: every line in it is news.
                    sawNoLog = false
                    return .records(Self.parse(logged))
                }
                // First look, or after a reset: whatever is logged so far is already reflected in
                // the records the caller is about to read.
                return .everything
            }
            let status = try log.fileSystem.status(fd, path: log.path)
            if status.linkCount == 0 {
                reset()
                return changes()
            }
            if status.size == position { return .none }
            let data = try readAll(fd)
            position += data.count
            return .records(Self.parse(data))
        } catch {
            reset()
            return .everything
        }
    }

    /// Skips `range`, the lines of this process's own write, if the reader is right before them:
    /// the write was applied to the cache directly. `false` when the reader is elsewhere (it has
    /// not read everything before them), and will read them as any other change.
    func consume(_ range: Range<Int>) -> Bool {
        guard let fd, position == range.lowerBound else { return false }
        var buffer = [UInt8](repeating: 0, count: range.count)
        var filled = 0
        while filled < range.count {
            let count = buffer.withUnsafeMutableBytes { raw in
                (try? log.fileSystem.read(
                    fd, into: UnsafeMutableRawBufferPointer(rebasing: raw[filled...]), path: log.path)) ?? 0
            }
            if count == 0 {
                reset()
                return false
            }
            filled += count
        }
        position = range.upperBound
        return true
    }

    private func openIfPresent() throws(FileSystemError) -> Int32? {
        do throws(FileSystemError) {
            return try log.fileSystem.open(log.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0)
        } catch  where error.code == ENOENT {
            return nil
        }
    }

    /// Reads from the current position to the end of the file.
    private func readAll(_ fd: Int32) throws(FileSystemError) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            var failure: FileSystemError?
            let count = buffer.withUnsafeMutableBytes { raw -> Int in
                do throws(FileSystemError) {
                    return try log.fileSystem.read(fd, into: raw, path: log.path)
                } catch {
                    failure = error
                    return 0
                }
            }
            if let failure { throw failure }
            if count == 0 { return data }
            data.append(contentsOf: buffer[..<count])
        }
    }

    private static func parse(_ data: Data) -> [(directoryName: String, fileName: String?)] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap { line in
            guard let slash = line.firstIndex(of: "/") else { return nil }
            let name = String(line[slash...].dropFirst())
            return (String(line[..<slash]), name == "*" ? nil : name)
        }
    }
}
