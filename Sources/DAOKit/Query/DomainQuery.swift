import Foundation

/// A query over domain values held in memory: filter, sort, page. ``BaseDao`` uses it for
/// `read(where:sortedBy:limit:offset:)`; subclasses can run it on values they already have.
public struct DomainQuery<Domain> {
    /// Values for which it returns `false` are left out; `nil` keeps every value.
    public var predicate: Predicate<Domain>?
    /// Applied in order: the first descriptor decides, later ones break its ties.
    public var sortedBy: [SortDescriptor<Domain>]
    /// At most this many values are returned; `nil` for no limit.
    public var limit: Int?
    /// This many values are skipped, after filtering and sorting.
    public var offset: Int

    // The properties are settable for building queries step by step; `apply` treats a negative
    // limit or offset set that way as zero, so only `init` traps on one.

    /// Creates a query.
    /// - Precondition: `offset >= 0` and `limit >= 0` when given: a negative page is a
    ///   programming error, as it is for `Array.prefix(_:)`.
    public init(
        predicate: Predicate<Domain>? = nil,
        sortedBy: [SortDescriptor<Domain>] = [],
        limit: Int? = nil,
        offset: Int = 0
    ) {
        precondition(offset >= 0, "DomainQuery offset must not be negative (got \(offset))")
        precondition((limit ?? 0) >= 0, "DomainQuery limit must not be negative (got \(limit ?? 0))")
        self.predicate = predicate
        self.sortedBy = sortedBy
        self.limit = limit
        self.offset = offset
    }

    /// The values of `values` that match, sorted and paged. The sort is stable: values the
    /// descriptors consider equal keep their order in `values`.
    /// - Throws: an error thrown while evaluating the predicate.
    public func apply(to values: [Domain]) throws -> [Domain] {
        var result = values
        if let predicate {
            result = try result.filter(predicate.evaluate)
        }
        if !sortedBy.isEmpty {
            result.sort(using: sortedBy)
        }
        if offset == 0 && limit == nil { return result }
        let start = min(max(offset, 0), result.count)
        let end = limit.map { start + min(max($0, 0), result.count - start) } ?? result.count
        return Array(result[start..<end])
    }
}
