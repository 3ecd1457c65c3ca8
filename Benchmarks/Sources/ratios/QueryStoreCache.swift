import Foundation

/// Where the query section keeps its on-disk stores — the file store and GRDB's database for each
/// number of messages — so that they are built once and reused: by the allocation-counting child
/// process, which measures the same stores, and by later runs.
///
/// The directory is `$DAOKIT_QUERY_STORES` when set, else `daokit-ratios-query-stores` under the
/// temporary directory. A store is built under a scratch name and renamed into place only when
/// complete, so a store that exists is whole, and two processes building at once both end with
/// one. Delete the directory to rebuild (after changing the sample data or the record format) or
/// to reclaim the disk space (about 0.9 GB of small files for 10,000 and 100,000 messages).
struct QueryStoreCache {
    let directory: URL

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        directory =
            environment["DAOKIT_QUERY_STORES"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "daokit-ratios-query-stores", isDirectory: true)
    }

    /// The store `name`: its location, after `build` made it at a scratch location when it was
    /// missing. `build` gets the location to create (a file or a directory, as it likes).
    func store(named name: String, build: (URL) throws -> Void) throws -> URL {
        let location = directory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: location.path) { return location }
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let scratch = directory.appendingPathComponent(".\(name).building-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try build(scratch)
        // Fails only when another process renamed its copy into place first: that one is used.
        if rename(scratch.path, location.path) != 0 && !FileManager.default.fileExists(atPath: location.path) {
            throw QueryStoreError(
                description: "cannot move \(scratch.path) to \(location.path): \(String(cString: strerror(errno)))")
        }
        return location
    }
}

/// A query store that cannot be built or opened.
struct QueryStoreError: Error, CustomStringConvertible {
    let description: String
}
