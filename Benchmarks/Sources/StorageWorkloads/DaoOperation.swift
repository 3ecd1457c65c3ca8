/// What the DAO benchmarks time; the raw value is the name printed in reports.
public enum DaoOperation: String, CaseIterable, Sendable {
    /// `persist(_:)` of one message, replacing a stored one; one operation is one persist.
    case persistOne
    /// `persist(_:)` of all stored messages in one call, replacing them.
    case persistBatch
    /// `read(id:)` of one stored message.
    case readById
    /// `read()` of all stored messages.
    case readAll
    /// `read(where:sortedBy:)` with ``BenchmarkedQuery``.
    case query

    /// The operation's name in workload names: `dao.<context>.<operation>`.
    public func name(on context: DaoContextKind) -> String {
        "dao.\(context.rawValue).\(rawValue)"
    }
}

/// How a DAO operation is done; the raw value is the name printed in reports.
public enum DaoVariant: String, CaseIterable, Sendable {
    /// Through `BaseDao<Message, MessageEntity>`.
    case dao
    /// The same work by hand: `EntityMapper(strict: true)` to entities, the context's `save`,
    /// `fetch` or `fetchAll`, `EntityMapper()` back to messages one by one; for the query, a
    /// hand-written filter and sort.
    case direct
    /// Only for ``DaoOperation/query``: `direct`, but filtering and sorting with the same Foundation
    /// `Predicate` and `SortDescriptor` the DAO is given. Tells the cost of Foundation's query
    /// types (compared with `direct`) from the cost of `BaseDao` itself (compared with `dao`).
    case directWithFoundationQuery = "direct+Predicate"
}

/// The parts `read()` is split into, to show where its time goes; the raw value is the variant name.
public enum ReadAllPart: String, CaseIterable, Sendable {
    /// `context.fetchAll`: store access plus decoding (or, in memory, copying) the entities.
    case fetchAll
    /// `EntityMapper().map(entities, to: [Message].self)` on entities fetched beforehand: what
    /// `BaseDao` adds to `fetchAll`.
    case mapToDomain = "map to domain"
    /// Key-value only: reading every record's text from the store, as `fetchAll` does, no decoding.
    case storeReads = "store reads"
    /// Key-value only: decoding every record's JSON text as a `MessageEntity`, as `fetchAll` does.
    case jsonDecode = "JSON decode"

    /// The parts measured on `context`.
    public static func measured(on context: DaoContextKind) -> [ReadAllPart] {
        switch context {
        case .memory: return [.fetchAll, .mapToDomain]
        case .keyValue: return allCases
        }
    }
}
