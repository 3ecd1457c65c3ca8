import Foundation

/// A ``StorageQuery`` in SQL, as far as SQL can answer it exactly.
///
/// SQL's comparisons differ from ``StorageFilter``'s meaning in places: three-valued logic with
/// NULL, one storage class for `Bool` and `Int` (and for `Date` and `Double`), numeric comparison
/// of integers with reals, byte order for text. So a condition becomes SQL only where the kinds
/// the column has ever held (``SQLiteFieldKinds``) make SQL's answer Swift's for every row:
/// - every SQL fragment is two-valued (`col IS ?`, `col IS NOT NULL AND col < ?`), so `NOT`
///   means Swift's `!`;
/// - an ordering comparison is translated only within one kind (integers, reals, dates, strings
///   by the ``SwiftStringCollation``, UUID text), and `Bool` compares only for (in)equality;
/// - a field that no row holds is `nil` everywhere, so its condition is a constant;
/// - anything else — nested paths, string prefix/contains, `Decimal`, `URL`, `Data`, mixed kinds —
///   stays out of SQL.
///
/// A filter that does not translate whole still yields SQL that selects a superset (the
/// translatable conjuncts of an `AND`); the context then evaluates the whole query in Swift on
/// those rows with ``QueryEvaluator``. Paging goes to SQL only when the filter and the sort do.
struct SQLiteQueryTranslation {
    /// The `WHERE` condition, `nil` for none.
    var condition: String?
    /// The values bound to the condition's `?`, in order.
    var arguments: [SQLiteValue] = []
    /// Whether ``condition`` selects exactly the entities the filter holds for.
    var conditionIsExact = true
    /// The `ORDER BY` list, `nil` when no key needs ordering.
    var ordering: String?
    /// Whether ``ordering`` orders exactly as the query's sort (ties aside).
    var orderingIsExact = true

    /// Whether SQL answers the whole query, paging included.
    var isExact: Bool { conditionIsExact && orderingIsExact }

    /// Translates `query` for a table whose columns have held `kinds` (by column name).
    init(_ query: StorageQuery, kinds: [String: SQLiteFieldKinds]) {
        if let filter = query.filter {
            if let fragment = Self.fragment(filter, kinds: kinds) {
                condition = fragment.sql
                arguments = fragment.arguments
                conditionIsExact = fragment.isExact
            } else {
                conditionIsExact = false
            }
        }
        var terms: [String] = []
        for key in query.sort {
            guard let term = Self.orderTerm(key, kinds: kinds) else {
                orderingIsExact = false
                break
            }
            if !term.isEmpty { terms.append(term) }
        }
        if orderingIsExact && !terms.isEmpty { ordering = terms.joined(separator: ", ") }
    }

    /// A piece of SQL condition: exact, or a superset of the rows the filter holds for.
    struct Fragment {
        var sql: String
        var arguments: [SQLiteValue]
        var isExact: Bool
    }

    /// The SQL for `filter`, or `nil` when nothing selective can be said in SQL (every row may match).
    static func fragment(_ filter: StorageFilter, kinds: [String: SQLiteFieldKinds]) -> Fragment? {
        switch filter {
        case let .compare(field, comparison, value):
            return compare(field, comparison, value, kinds: kinds)
        case let .isIn(field, values):
            if values.isEmpty { return Fragment(sql: "0", arguments: [], isExact: true) }
            let parts = values.map { compare(field, .equal, $0, kinds: kinds) }
            guard parts.allSatisfy({ $0?.isExact == true }) else { return nil }
            return join(parts.compactMap { $0 }, with: "OR")
        case .hasPrefix, .contains:
            return nil
        case let .and(filters):
            if filters.isEmpty { return Fragment(sql: "1", arguments: [], isExact: true) }
            let parts = filters.map { fragment($0, kinds: kinds) }
            let translated = parts.compactMap { $0 }
            if translated.isEmpty { return nil }
            var joined = join(translated, with: "AND")
            joined.isExact = translated.count == parts.count && translated.allSatisfy(\.isExact)
            return joined
        case let .or(filters):
            if filters.isEmpty { return Fragment(sql: "0", arguments: [], isExact: true) }
            // Supersets of each part OR together into a superset of the whole; a part with no
            // SQL at all lets every row through.
            let parts = filters.map { fragment($0, kinds: kinds) }
            guard parts.allSatisfy({ $0 != nil }) else { return nil }
            return join(parts.compactMap { $0 }, with: "OR")
        case let .not(inner):
            // The negation of a superset is not a superset of anything: only exact parts.
            guard let part = fragment(inner, kinds: kinds), part.isExact else { return nil }
            return Fragment(sql: "NOT (\(part.sql))", arguments: part.arguments, isExact: true)
        }
    }

    private static func join(_ parts: [Fragment], with connective: String) -> Fragment {
        if parts.count == 1 { return parts[0] }
        return Fragment(sql: parts.map { "(\($0.sql))" }.joined(separator: " \(connective) "),
                        arguments: parts.flatMap(\.arguments), isExact: parts.allSatisfy(\.isExact))
    }

    /// `field <comparison> value`, exact, or `nil`.
    static func compare(_ field: FieldPath, _ comparison: StorageComparison, _ value: StorageValue,
                        kinds: [String: SQLiteFieldKinds]) -> Fragment? {
        guard field.keys.count == 1 else { return nil }
        let name = field.keys[0]
        let stored = (kinds[name] ?? []).subtracting(.null)
        if stored.isEmpty {
            // No row holds a value (or the column does not exist): the field is nil everywhere.
            return Fragment(sql: comparison.holds(.null, value) ? "1" : "0", arguments: [], isExact: true)
        }
        let column = collated(name)
        if case .null = value {
            // A nested container reads as nil in a query, and is JSON text here.
            guard stored.isDisjoint(with: [.json, .opaque]) else { return nil }
            switch comparison {
            case .equal: return Fragment(sql: "\(column) IS NULL", arguments: [], isExact: true)
            case .notEqual: return Fragment(sql: "\(column) IS NOT NULL", arguments: [], isExact: true)
            default: return Fragment(sql: "0", arguments: [], isExact: true)
            }
        }
        guard let (operand, columnExpression, orderable) = bindable(value, stored: stored, column: column) else { return nil }
        switch comparison {
        case .equal: return Fragment(sql: "\(columnExpression) IS ?", arguments: [operand], isExact: true)
        case .notEqual: return Fragment(sql: "\(columnExpression) IS NOT ?", arguments: [operand], isExact: true)
        default:
            // Swift cannot order two Bools: every ordering comparison is false.
            guard orderable else { return Fragment(sql: "0", arguments: [], isExact: true) }
            let symbol: String
            switch comparison {
            case .less: symbol = "<"
            case .lessOrEqual: symbol = "<="
            case .greater: symbol = ">"
            default: symbol = ">="
            }
            return Fragment(sql: "\(column) IS NOT NULL AND \(columnExpression) \(symbol) ?", arguments: [operand], isExact: true)
        }
    }

    /// The constant to bind for `value` against a column holding `stored`, the column expression
    /// to compare it with, and whether the kind is ordered; `nil` when SQL would not compare them
    /// as Swift does.
    private static func bindable(_ value: StorageValue, stored: SQLiteFieldKinds, column: String)
        -> (SQLiteValue, String, Bool)? {
        switch value {
        case let .bool(flag) where stored == .bool:
            return (.integer(flag ? 1 : 0), column, false)
        case let .int(number) where stored == .integer:
            return (.integer(number), column, true)
        case let .uint(number) where stored == .integer && number <= UInt64(Int64.max):
            return (.integer(Int64(number)), column, true)
        case let .int(number) where stored == .real:
            return (.real(Double(number)), column, true)  // Swift compares Double(int) with the double
        case let .uint(number) where stored == .real:
            return (.real(Double(number)), column, true)
        case let .double(number) where stored == .real && !number.isNaN:
            return (.real(number), column, true)
        case let .double(number) where stored == .integer && !number.isNaN:
            return (.real(number), "CAST(\(column) AS REAL)", true)  // Swift compares Double(int); no index
        case let .date(date) where stored == .date:
            return (.real(date.timeIntervalSinceReferenceDate), column, true)
        case let .string(string) where stored == .string:
            return (.text(string), column, true)  // the column's DAOKIT collation compares as Swift
        case let .uuid(uuid) where stored == .uuid:
            return (.text(uuid.uuidString), column, true)
        default:
            return nil
        }
    }

    /// The `ORDER BY` term for a sort key: `nil` when SQL cannot order as Swift does, empty when
    /// the key leaves every row tied.
    static func orderTerm(_ key: StorageSortKey, kinds: [String: SQLiteFieldKinds]) -> String? {
        guard key.field.keys.count == 1 else { return nil }
        let stored = (kinds[key.field.keys[0]] ?? []).subtracting(.null)
        let direction = key.order == .forward ? "ASC" : "DESC"
        let column = collated(key.field.keys[0])
        if stored.isEmpty || stored == .json { return "" }  // nil everywhere: all tied
        if stored.isSubset(of: [.bool, .data, .url]) {
            // Swift orders nil first and cannot order these values among themselves. (Whether a
            // row lacks the field is not recorded as a kind: an omitted optional writes nothing.)
            return "\(column) IS NOT NULL \(direction)"
        }
        if key.stringComparator != nil { return nil }
        if stored == .integer || stored == .real || stored == .date || stored == .string || stored == .uuid {
            return "\(column) \(direction)"  // NULL first ascending and last descending, as in Swift
        }
        return nil
    }

    /// The column `name` under the ``SwiftStringCollation``: what every comparison and ordering
    /// uses, so that text compares as Swift compares it, and so that the declared indexes (which
    /// use it on every column) can serve the query. It changes nothing for other values.
    static func collated(_ name: String) -> String {
        quoted(name) + " COLLATE " + SwiftStringCollation.name
    }

    /// `name` as an SQL identifier.
    static func quoted(_ name: String) -> String {
        SQLQuoting.identifier(name)
    }
}
