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

/// Notices commits other processes (and other contexts of this process) make to a file store, by
/// tailing its ``ChangeLog``, for the context's ``StorageChangeNotifier``.
///
/// Every write appends `<entity directory>/<record file>` lines under the exclusive lock before it
/// changes a record. The monitor reads the lines appended since its last look — with an `fstat`
/// of a descriptor it keeps open, and a `read` when the file grew — without taking the store's
/// lock: a line it sees belongs to a write that holds, or held, the exclusive lock, so the
/// observer re-run it triggers takes the shared lock after that write commits or rolls back, and
/// reads the committed state. (A write that then fails announced a change that did not happen:
/// the observers re-run and find their results equal.)
///
/// Lines this context appended itself are skipped (it posts its own writes as it commits them),
/// by the byte ranges ``ChangeLog/append(directoryName:fileNames:)`` returns. A log replaced by an
/// empty one (it grew past its maximum) is reported as ``StorageChange/everything``.
///
/// **Delay.** The notifier polls every 100 ms by default, so another process's commit reaches an
/// observer within about 100 ms plus the re-run of its query: documented as at most 250 ms.
final class FileChangeMonitor: ExternalChangeMonitor, @unchecked Sendable {
    // Sound as `Sendable`: every stored `var` is touched only inside `state`'s lock; the rest is
    // immutable.
    private struct State {
        var fd: Int32?
        /// Bytes of the open log consumed, partial last line included.
        var position = 0
        /// The bytes of a line whose newline has not been written yet.
        var partialLine: [UInt8] = []
        /// Where this context's own lines are in the open log.
        var ownRanges: [Range<Int>] = []
        var active = false
    }

    private let log: ChangeLog
    private let format: FileStorageContext.RecordFormat
    private let state = Locked(State())

    init(log: ChangeLog, format: FileStorageContext.RecordFormat) {
        self.log = log
        self.format = format
    }

    deinit {
        state.withLock { state in closeLog(&state) }
    }

    /// Notes that this context appended `range` (its own write's lines), so the monitor skips them.
    func noteOwnLines(_ range: Range<Int>?) {
        guard let range else { return }
        state.withLock { state in
            if state.active && range.upperBound > state.position { state.ownRanges.append(range) }
        }
    }

    func begin() {
        state.withLock { state in
            closeLog(&state)
            state.active = true
            state.fd = openLog()
            // Read to the end rather than `fstat` the size: reads continue from the descriptor's
            // offset, so it must stand where `position` says. The lines so far are not changes.
            if let fd = state.fd { _ = read(&state, from: fd) }
        }
    }

    func end() {
        state.withLock { state in
            closeLog(&state)
            state.active = false
        }
    }

    func changes() -> [StorageChange] {
        state.withLock { state -> [StorageChange] in
            guard state.active else { return [] }
            guard let fd = state.fd else {
                // No log when observing began: every line in one that appeared since is new.
                guard let opened = openLog() else { return [] }
                state.fd = opened
                state.position = 0
                return read(&state, from: opened)
            }
            guard let status = try? log.fileSystem.status(fd, path: log.path) else {
                closeLog(&state)
                return [.everything]
            }
            if status.linkCount == 0 {
                // Replaced by an empty log: the lines between our position and the replacement
                // are gone, and a new file has started.
                closeLog(&state)
                if let opened = openLog() {
                    state.fd = opened
                    _ = read(&state, from: opened)
                }
                return [.everything]
            }
            if status.size <= state.position { return [] }
            return read(&state, from: fd)
        }
    }

    /// Reads what was appended after `state.position` and turns its complete lines into changes.
    private func read(_ state: inout State, from fd: Int32) -> [StorageChange] {
        var data: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { raw in
                (try? log.fileSystem.read(fd, into: raw, path: log.path)) ?? -1
            }
            if count < 0 {
                closeLog(&state)
                return [.everything]
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
        }
        var lineStart = state.position - state.partialLine.count
        state.position += data.count
        let bytes = state.partialLine + data
        state.partialLine = []
        var changed: [String?: Set<String>?] = [:]
        var offset = 0
        while let newline = bytes[offset...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = bytes[offset..<newline]
            defer {
                lineStart += newline + 1 - offset
                offset = newline + 1
            }
            if state.ownRanges.contains(where: { $0.contains(lineStart) }) { continue }
            note(line, in: &changed)
        }
        state.partialLine = Array(bytes[offset...])
        state.ownRanges.removeAll { $0.upperBound <= state.position - state.partialLine.count }
        return changed.map { StorageChange(entityName: $0.key, storageKeys: $0.value) }
    }

    /// Adds the change one log line names: its entity (`nil` when the directory name is hashed)
    /// and record key (`nil` keys: `*`, or a hashed file name).
    private func note(_ line: ArraySlice<UInt8>, in changed: inout [String?: Set<String>?]) {
        guard let slash = line.firstIndex(of: UInt8(ascii: "/")) else { return }
        let directoryName = String(decoding: line[..<slash], as: UTF8.self)
        let fileName = String(decoding: line[(slash + 1)...], as: UTF8.self)
        let entityName = FileNameCodec.decode(directoryName)
        let key = fileName == "*" ? nil : format.key(fromFileName: fileName)
        guard let entityName, let key else {
            changed[entityName] = .some(nil)
            return
        }
        switch changed[entityName] {
        case nil: changed[entityName] = [key]
        case .some(nil): break
        case .some(.some(var keys)):
            keys.insert(key)
            changed[entityName] = keys
        }
    }

    private func openLog() -> Int32? {
        try? log.fileSystem.open(log.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK, 0)
    }

    private func closeLog(_ state: inout State) {
        if let fd = state.fd { try? log.fileSystem.close(fd, path: log.path) }
        state.fd = nil
        state.position = 0
        state.partialLine = []
        state.ownRanges = []
    }
}
