import DAOKit

/// A `StorageQuery` in SQL, as far as SQL answers it exactly: the part of the translation every
/// SQL dialect shares, for the SQLite context, the PostgreSQL context and any SQL context of your
/// own (which describes its dialect with an ``SQLDialect`` and its bound constants with an
/// ``SQLParameterList``).
///
/// The walk over a filter is the same in every dialect; what a dialect says is how one field
/// compares with one constant, how one sort key orders, and how it spells true, false and a
/// negation (``SQLDialect``). The walk keeps what is exact and, where a part has no exact SQL,
/// still a superset where it can:
/// - an `AND` keeps the parts that translate (a superset of the whole when some do not);
/// - an `OR` translates only when every part does (a part with no SQL lets every row through);
/// - a negation and a membership translate only when exact (the negation of a superset is not a
///   superset of anything);
/// - prefix and substring tests stay in Swift.
/// The context then evaluates the whole query in Swift on the rows a superset selects. Paging goes
/// to SQL only when the filter and the sort are exact (``isExact``).
///
/// The constants a condition compares with are bound, never written into the SQL: each
/// comparison appends them to `parameters` in the order its SQL names them, and a part that is
/// dropped takes its constants with it, so that `parameters` holds exactly the condition's.
public struct SQLQueryTranslation<Parameters: SQLParameterList> {
    /// The `WHERE` condition, `nil` for none.
    public var condition: String?
    /// Whether ``condition`` selects exactly the entities the filter holds for.
    public var conditionIsExact = true
    /// The `ORDER BY` list, `nil` when no key needs ordering.
    public var ordering: String?
    /// Whether ``ordering`` orders exactly as the query's sort (ties aside).
    public var orderingIsExact = true
    /// The constants bound: what the translation was given, then the condition's, in order.
    public var parameters: Parameters

    /// Whether SQL answers the whole query, paging included.
    public var isExact: Bool { conditionIsExact && orderingIsExact }

    /// Translates `query` in `dialect`, appending the condition's constants to `parameters`.
    public init<Dialect: SQLDialect>(_ query: StorageQuery, dialect: Dialect, parameters: Parameters)
    where Dialect.Parameters == Parameters {
        self.parameters = parameters
        if let filter = query.filter {
            if let fragment = Self.fragment(filter, dialect: dialect, parameters: &self.parameters) {
                condition = fragment.sql
                conditionIsExact = fragment.isExact
            } else {
                conditionIsExact = false
            }
        }
        var terms: [String] = []
        for key in query.sort {
            guard let term = dialect.orderTerm(key) else {
                orderingIsExact = false
                break
            }
            if !term.isEmpty { terms.append(term) }
        }
        if orderingIsExact && !terms.isEmpty { ordering = terms.joined(separator: ", ") }
    }

    /// The SQL for `filter`, or `nil` when nothing selective can be said in SQL (every row may
    /// match); the constants of SQL that was tried and dropped are dropped with it.
    static func fragment<Dialect: SQLDialect>(_ filter: StorageFilter, dialect: Dialect, parameters: inout Parameters)
        -> SQLFragment?
    where Dialect.Parameters == Parameters {
        let mark = parameters.count
        let translated = walk(filter, dialect: dialect, parameters: &parameters)
        if translated == nil { parameters.removeAll(after: mark) }
        return translated
    }

    private static func walk<Dialect: SQLDialect>(
        _ filter: StorageFilter, dialect: Dialect, parameters: inout Parameters
    ) -> SQLFragment?
    where Dialect.Parameters == Parameters {
        switch filter {
        case .compare(let field, let comparison, let value):
            return dialect.compare(field, comparison, value, parameters: &parameters)
        case .isIn(let field, let values):
            if values.isEmpty { return SQLFragment(sql: dialect.alwaysFalse, isExact: true) }
            guard let membership = dialect.membership(field, values, parameters: &parameters), membership.isExact else {
                return nil
            }
            return membership
        case .hasPrefix, .contains:
            return nil
        case .and(let filters):
            if filters.isEmpty { return SQLFragment(sql: dialect.alwaysTrue, isExact: true) }
            let parts = filters.map { fragment($0, dialect: dialect, parameters: &parameters) }
            let translated = parts.compactMap { $0 }
            if translated.isEmpty { return nil }
            var joined = join(translated, with: "AND")
            joined.isExact = translated.count == parts.count && translated.allSatisfy(\.isExact)
            return joined
        case .or(let filters):
            if filters.isEmpty { return SQLFragment(sql: dialect.alwaysFalse, isExact: true) }
            var parts: [SQLFragment] = []
            for filter in filters {
                guard let part = fragment(filter, dialect: dialect, parameters: &parameters) else { return nil }
                parts.append(part)
            }
            return join(parts, with: "OR")
        case .not(let inner):
            guard let part = fragment(inner, dialect: dialect, parameters: &parameters), part.isExact else {
                return nil
            }
            return SQLFragment(sql: dialect.negation(of: part.sql), isExact: true)
        }
    }

    static func join(_ parts: [SQLFragment], with connective: String) -> SQLFragment {
        if parts.count == 1 { return parts[0] }
        return SQLFragment(
            sql: parts.map { "(\($0.sql))" }.joined(separator: " \(connective) "), isExact: parts.allSatisfy(\.isExact))
    }
}

/// A piece of SQL condition: exact, or a superset of the rows the filter holds for.
public struct SQLFragment: Sendable {
    /// The condition.
    public var sql: String
    /// Whether it selects exactly the rows the filter holds for (otherwise a superset).
    public var isExact: Bool

    /// A condition, exact or a superset.
    public init(sql: String, isExact: Bool) {
        self.sql = sql
        self.isExact = isExact
    }
}

/// What one SQL dialect says in a ``SQLQueryTranslation``: how a field compares with a constant,
/// how a sort key orders, and how truth and negation are spelled. Each answer is `nil` where the
/// dialect would not answer exactly as Swift does (`StorageQuery.apply(to:)`).
public protocol SQLDialect {
    /// Where comparisons put their constants.
    associatedtype Parameters: SQLParameterList
    /// A condition every row meets.
    var alwaysTrue: String { get }
    /// A condition no row meets.
    var alwaysFalse: String { get }
    /// The negation of an exact `condition`: true exactly where Swift's `!` is.
    func negation(of condition: String) -> String
    /// `field <comparison> value`, its constants appended to `parameters` in the order the SQL
    /// names them; `nil` (appending nothing) when SQL would not compare as Swift does.
    func compare(
        _ field: FieldPath, _ comparison: StorageComparison, _ value: StorageValue, parameters: inout Parameters
    ) -> SQLFragment?
    /// The `ORDER BY` term for `key`: `nil` when SQL cannot order as Swift does, empty when the key
    /// leaves every row tied.
    func orderTerm(_ key: StorageSortKey) -> String?
    /// `field` equal to one of `values` (never empty): `list.contains($0.field)`. Its constants
    /// appended to `parameters`; `nil` (appending nothing) when SQL would not answer as Swift
    /// does. The default is ``equalityDisjunction(_:_:parameters:)``; a dialect that can bind a
    /// list as one parameter (PostgreSQL's arrays) answers long lists without one parameter and
    /// one comparison per constant.
    func membership(_ field: FieldPath, _ values: [StorageValue], parameters: inout Parameters) -> SQLFragment?
}

extension SQLDialect {
    /// ``equalityDisjunction(_:_:parameters:)``: one comparison per constant.
    public func membership(_ field: FieldPath, _ values: [StorageValue], parameters: inout Parameters) -> SQLFragment? {
        equalityDisjunction(field, values, parameters: &parameters)
    }

    /// `field = v1 OR field = v2 …`, one ``compare(_:_:_:parameters:)`` per value; `nil` unless
    /// every one is exact, with the constants of the ones made dropped.
    public func equalityDisjunction(_ field: FieldPath, _ values: [StorageValue], parameters: inout Parameters)
        -> SQLFragment?
    {
        let mark = parameters.count
        var parts: [SQLFragment] = []
        for value in values {
            guard let part = compare(field, .equal, value, parameters: &parameters), part.isExact else {
                parameters.removeAll(after: mark)
                return nil
            }
            parts.append(part)
        }
        return SQLQueryTranslation<Parameters>.join(parts, with: "OR")
    }
}

/// The constants a statement binds, in order, as a dialect keeps them.
public protocol SQLParameterList {
    /// How many there are.
    var count: Int { get }
    /// Drops every constant after the first `count`, whose SQL was dropped.
    mutating func removeAll(after count: Int)
}
