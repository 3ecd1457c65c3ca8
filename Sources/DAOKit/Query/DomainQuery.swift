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

    /// Creates a query. Any values are accepted; ``apply(to:)`` refuses a negative `limit` or
    /// `offset`, however it was set.
    public init(
        predicate: Predicate<Domain>? = nil,
        sortedBy: [SortDescriptor<Domain>] = [],
        limit: Int? = nil,
        offset: Int = 0
    ) {
        self.predicate = predicate
        self.sortedBy = sortedBy
        self.limit = limit
        self.offset = offset
    }

    /// The values of `values` that match, sorted and paged. The sort is stable: values the
    /// descriptors consider equal keep their order in `values`.
    /// - Throws: ``StorageError`` of code ``StorageError/Code/invalidQuery`` for a negative
    ///   `limit` or `offset` (before evaluating anything); an error thrown while evaluating the
    ///   predicate.
    public func apply(to values: [Domain]) throws -> [Domain] {
        try StorageQuery.validatePage(limit: limit, offset: offset, entityName: nil)
        var result = values
        if let predicate {
            result = try result.filter(predicate.evaluate)
        }
        if !sortedBy.isEmpty {
            result.sort(using: sortedBy)
        }
        if offset == 0 && limit == nil { return result }
        let start = min(offset, result.count)
        let end = limit.map { start + min($0, result.count - start) } ?? result.count
        return Array(result[start..<end])
    }
}
