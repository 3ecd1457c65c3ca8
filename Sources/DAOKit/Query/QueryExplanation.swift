import DAOKitInternals

/// How a context answers a ``StorageQuery``: which declared index it walks or its database
/// searches, whether it reads every record of the type, and, for an SQL context, the statement and
/// the database's own plan. What ``ExplainingStorageContext/explain(_:counting:for:)`` returns.
public struct StorageAccess: Sendable, Hashable, CustomStringConvertible {
    /// The declared index (``Storable/indexes``) the context walks, or its database searches;
    /// `nil` when none serves the query.
    public var index: StorageIndex?
    /// Whether the context reads every record of the type (no index narrows the query).
    public var scansEveryRecord: Bool
    /// Whether the context answers a count from the index's entries alone, reading no record.
    public var countsIndexEntries: Bool
    /// The SQL the context runs, for an SQL context.
    public var statement: String?
    /// The database's plan for ``statement`` (SQLite's `EXPLAIN QUERY PLAN` detail lines), if
    /// the context reads it.
    public var databasePlan: [String]

    /// A description of an access.
    public init(
        index: StorageIndex? = nil, scansEveryRecord: Bool, countsIndexEntries: Bool = false,
        statement: String? = nil, databasePlan: [String] = []
    ) {
        self.index = index
        self.scansEveryRecord = scansEveryRecord
        self.countsIndexEntries = countsIndexEntries
        self.statement = statement
        self.databasePlan = databasePlan
    }

    /// One line: the index or the scan, then the SQL and its plan.
    public var description: String {
        var parts: [String] = []
        if let index {
            parts.append(
                "index (\(index.fields.map(\.description).joined(separator: ", ")))"
                    + (countsIndexEntries ? ", counting its entries" : ""))
        }
        if scansEveryRecord { parts.append("scans every record") }
        if index == nil && !scansEveryRecord { parts.append("no declared index") }
        if let statement { parts.append("SQL: \(statement)") }
        if !databasePlan.isEmpty { parts.append("plan: \(databasePlan.joined(separator: "; "))") }
        return parts.joined(separator: "; ")
    }
}

/// A context that says how it would answer a query, without running it: what
/// ``BaseDao/explain(where:sortedBy:limit:offset:)`` asks. The in-memory, file and SQLite contexts
/// conform; for another context the explanation says only what `BaseDao` hands it.
public protocol ExplainingStorageContext: StorageContext {
    /// How the context would answer `query` for entities of `type` now: a fetch, or, when
    /// `counting`, a count of the query's filter.
    /// - Throws: ``StorageError`` when the context cannot look at its indexes or database.
    func explain<E: Storable>(_ query: StorageQuery, counting: Bool, for type: E.Type) throws -> StorageAccess
}

/// What ``BaseDao`` does for a predicate, sort and page: what it hands the context (pushes down),
/// how the context answers that, and what it evaluates in Swift on the mapped values.
public struct QueryExplanation: Sendable, Hashable, CustomStringConvertible {
    /// What the context is asked: the translated filter, sort and page (empty when nothing is).
    public var storageQuery: StorageQuery
    /// Whether the filter handed to the context selects exactly what the predicate does (`false`:
    /// a superset, or no filter, while there is a predicate).
    public var filterIsExact: Bool
    /// Whether the predicate is evaluated in Swift on the values the context returns.
    public var evaluatesPredicateInSwift: Bool
    /// Whether the sort is applied in Swift.
    public var sortsInSwift: Bool
    /// Whether limit and offset are applied in Swift.
    public var pagesInSwift: Bool
    /// Whether the whole query is handed over as a count (`count(where:)` with an exact filter).
    public var countedByContext: Bool
    /// How the context answers ``storageQuery``; `nil` for a context that is not an
    /// ``ExplainingStorageContext``.
    public var access: StorageAccess?

    /// An explanation.
    public init(
        storageQuery: StorageQuery, filterIsExact: Bool, evaluatesPredicateInSwift: Bool, sortsInSwift: Bool,
        pagesInSwift: Bool, countedByContext: Bool = false, access: StorageAccess?
    ) {
        self.storageQuery = storageQuery
        self.filterIsExact = filterIsExact
        self.evaluatesPredicateInSwift = evaluatesPredicateInSwift
        self.sortsInSwift = sortsInSwift
        self.pagesInSwift = pagesInSwift
        self.countedByContext = countedByContext
        self.access = access
    }

    /// Whether the context reads every record for the query (no index or SQL narrows it, or
    /// nothing is handed to it).
    public var scansEveryRecord: Bool {
        access?.scansEveryRecord ?? (storageQuery.filter == nil)
    }

    /// Several lines: pushed down, the context's access, in Swift.
    public var description: String {
        var lines: [String] = []
        var pushed: [String] = []
        if let filter = storageQuery.filter {
            pushed.append("filter \(filter)" + (filterIsExact ? "" : " (a superset)"))
        }
        if !storageQuery.sort.isEmpty {
            pushed.append(
                "sort "
                    + storageQuery.sort.map { "\($0.field) \($0.order == .forward ? "ascending" : "descending")" }
                    .joined(separator: ", "))
        }
        if let limit = storageQuery.limit { pushed.append("limit \(limit)") }
        if storageQuery.offset > 0 { pushed.append("offset \(storageQuery.offset)") }
        if countedByContext { pushed.append("count") }
        lines.append("pushed down: " + (pushed.isEmpty ? "nothing" : pushed.joined(separator: "; ")))
        lines.append("context: " + (access?.description ?? "does not explain itself"))
        var swift: [String] = []
        if evaluatesPredicateInSwift { swift.append("predicate") }
        if sortsInSwift { swift.append("sort") }
        if pagesInSwift { swift.append("page") }
        lines.append("in Swift: " + (swift.isEmpty ? "nothing" : swift.joined(separator: ", ")))
        return lines.joined(separator: "\n")
    }
}

/// A query that read every record of a large store, as ``QueryDiagnostics/onLargeScan`` reports it.
public struct LargeScan: Sendable, CustomStringConvertible {
    /// The entity type's ``Storable/entityName``.
    public var entityName: String
    /// How many records the store held.
    public var recordCount: Int
    /// What the query did.
    public var explanation: QueryExplanation

    /// A report.
    public init(entityName: String, recordCount: Int, explanation: QueryExplanation) {
        self.entityName = entityName
        self.recordCount = recordCount
        self.explanation = explanation
    }

    /// One paragraph: the entity, the size, then the explanation.
    public var description: String {
        "A query on \(entityName) read every one of its \(recordCount) records:\n\(explanation)"
    }
}

/// Where DAOKit reports queries that scan a large store. DAOKit has no logger of its own: the app
/// sets a closure (to `os.Logger`, swift-log, `print`) and decides what to do with the report.
///
/// ```swift
/// QueryDiagnostics.onLargeScan = { scan in logger.warning("\(scan.description)") }
/// ```
///
/// `BaseDao` calls it at most once per entity type and query shape (which fields are pushed down,
/// and what is left to Swift) in the process, the first time such a query reads every record of a
/// store of at least ``largeScanThreshold`` records; the check costs one explanation and one count
/// per shape, and nothing while no closure is set.
public enum QueryDiagnostics {
    /// Called with a query that read every record of a large store; `nil` (the default) for none.
    public static var onLargeScan: (@Sendable (LargeScan) -> Void)? {
        get { state.withLock { $0.handler } }
        set {
            state.withLock {
                $0.handler = newValue
                $0.reported = []
            }
        }
    }

    /// The number of records from which a store is large: 10,000 unless set.
    public static var largeScanThreshold: Int {
        get { state.withLock { $0.threshold } }
        set { state.withLock { $0.threshold = newValue } }
    }

    struct State {
        var handler: (@Sendable (LargeScan) -> Void)?
        var threshold = 10_000
        /// Query shapes already looked at.
        var reported: Set<String> = []
    }

    static let state = Locked(State())

    /// The handler and threshold when `shape` was not looked at before (it is marked as looked at),
    /// `nil` otherwise or when no handler is set.
    static func claim(_ shape: String) -> (handler: @Sendable (LargeScan) -> Void, threshold: Int)? {
        state.withLock { state in
            guard let handler = state.handler, state.reported.insert(shape).inserted else { return nil }
            return (handler, state.threshold)
        }
    }
}
