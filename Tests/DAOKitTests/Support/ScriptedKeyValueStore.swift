import DAOKit

/// A ``KeyValueStore`` test double over a dictionary that logs every call and fails the calls a
/// test tells it to, to reach the context's I/O error paths and count what it reads.
final class ScriptedKeyValueStore: KeyValueStore {
    struct Refused: Error, CustomStringConvertible {
        let operation: String
        let key: String
        var description: String { "refused to \(operation) \(key)" }
    }

    private(set) var values: [String: String]
    /// Every key read, in order; a listing is logged as `list <prefix>`.
    private(set) var reads: [String] = []
    /// Every call that reads or writes a key, in order: `read <key>`, `write <key>`, `remove <key>`.
    private(set) var operations: [String] = []
    /// Keys a listing reports although the store holds nothing under them, as when another
    /// process removes a record between the listing and the read.
    var phantomKeys: [String] = []
    /// How many more writes (`setString` and `removeObject`) succeed; `nil` for no limit.
    var writesLeft: Int?
    /// Reads of keys for which this is true fail.
    var failsReading: (String) -> Bool = { _ in false }
    /// Writes of keys for which this is true fail.
    var failsWriting: (String) -> Bool = { _ in false }
    var failsFlushing = false
    private(set) var flushes = 0
    /// What the store asks for as ``KeyValueStore/writesBetweenFlushes``.
    var writesBetweenFlushes: Int?
    /// The values as of the last flush: what a buffering store would have on disk.
    private(set) var flushedValues: [String: String] = [:]

    init(_ values: [String: String] = [:]) {
        self.values = values
    }

    func string(forKey key: String) throws -> String? {
        reads.append(key)
        operations.append("read \(key)")
        if failsReading(key) { throw Refused(operation: "read", key: key) }
        return values[key]
    }

    func keys(withPrefix prefix: String) throws -> [String] {
        reads.append("list \(prefix)")
        if failsReading("list \(prefix)") { throw Refused(operation: "list", key: prefix) }
        return (Array(values.keys) + phantomKeys).filter { $0.hasPrefix(prefix) }
    }

    func setString(_ value: String, forKey key: String) throws {
        try spendWrite("write", key)
        operations.append("write \(key)")
        values[key] = value
    }

    func removeObject(forKey key: String) throws {
        try spendWrite("remove", key)
        operations.append("remove \(key)")
        values[key] = nil
    }

    func flush() throws {
        if failsFlushing { throw Refused(operation: "flush", key: "the store") }
        flushes += 1
        flushedValues = values
    }

    func forgetReads() {
        reads = []
        operations = []
    }

    private func spendWrite(_ operation: String, _ key: String) throws {
        if failsWriting(key) { throw Refused(operation: operation, key: key) }
        if let left = writesLeft {
            if left == 0 { throw Refused(operation: operation, key: key) }
            writesLeft = left - 1
        }
    }
}
