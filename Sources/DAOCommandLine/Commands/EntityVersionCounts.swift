/// How many records (or rows) of one entity type each entity version wrote, as `inspect` shows
/// them ("1: 8, 3: 16") and as `verify` notes them.
struct EntityVersionCounts: CustomStringConvertible {
    private var counts: [Int: Int] = [:]

    /// Counts `times` records of `version`.
    mutating func count(_ version: Int, times: Int = 1) {
        counts[version, default: 0] += times
    }

    /// "1: 8, 3: 16", by version; "-" for none.
    var description: String {
        counts.isEmpty ? "-" : counts.keys.sorted().map { "\($0): \(counts[$0] ?? 0)" }.joined(separator: ", ")
    }

    /// The note on an entity whose records several versions wrote: how many the newest version
    /// wrote, and that code of the older versions — a rollback, an older instance on the same
    /// store — can neither read nor replace them. `nil` for records of one version. Not a problem:
    /// it is what a release that declares a version leaves until every instance runs it.
    func newestVersionNote(location: String, entity: String, unit: String) -> String? {
        let versions = counts.keys.sorted()
        guard versions.count > 1, let newest = versions.last else { return nil }
        let others = versions.dropLast()
        let older = others.map { counts[$0] ?? 0 }.reduce(0, +)
        let span =
            others.count == 1 ? "version \(others[others.startIndex])" : "versions \(others.first!)–\(others.last!)"
        return
            "\(location): \(entity): \(TextLayout.count(counts[newest] ?? 0, unit)) of version \(newest), newer than the other \(older) (\(span)): code that reads up to version \(others.last!) can neither read nor replace them"
    }
}
