import DAOKit
import DAOKitSQL
import Foundation

/// SQLite's part of a ``SQLQueryTranslation``: how a column compares and orders as Swift does.
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
/// The rows a superset selects are checked in Swift with ``QueryEvaluator``.
struct SQLiteDialect: SQLDialect {
    /// The kinds each column has held, by column name.
    let kinds: [String: SQLiteFieldKinds]

    var alwaysTrue: String { "1" }
    var alwaysFalse: String { "0" }

    func negation(of condition: String) -> String { "NOT (\(condition))" }

    /// `field <comparison> value`, exact, or `nil`.
    func compare(
        _ field: FieldPath, _ comparison: StorageComparison, _ value: StorageValue, parameters: inout SQLiteArguments
    ) -> SQLFragment? {
        guard field.keys.count == 1 else { return nil }
        let name = field.keys[0]
        let stored = (kinds[name] ?? []).subtracting(.null)
        if stored.isEmpty {
            // No row holds a value (or the column does not exist): the field is nil everywhere.
            return SQLFragment(sql: comparison.holds(.null, value) ? "1" : "0", isExact: true)
        }
        let column = Self.collated(name)
        if case .null = value {
            // A nested container reads as nil in a query, and is JSON text here.
            guard stored.isDisjoint(with: [.json, .opaque]) else { return nil }
            switch comparison {
            case .equal: return SQLFragment(sql: "\(column) IS NULL", isExact: true)
            case .notEqual: return SQLFragment(sql: "\(column) IS NOT NULL", isExact: true)
            default: return SQLFragment(sql: "0", isExact: true)
            }
        }
        guard let (operand, columnExpression, orderable) = Self.bindable(value, stored: stored, column: column) else {
            return nil
        }
        switch comparison {
        case .equal:
            parameters.append(operand)
            return SQLFragment(sql: "\(columnExpression) IS ?", isExact: true)
        case .notEqual:
            parameters.append(operand)
            return SQLFragment(sql: "\(columnExpression) IS NOT ?", isExact: true)
        default:
            // Swift cannot order two Bools: every ordering comparison is false.
            guard orderable else { return SQLFragment(sql: "0", isExact: true) }
            let symbol: String
            switch comparison {
            case .less: symbol = "<"
            case .lessOrEqual: symbol = "<="
            case .greater: symbol = ">"
            default: symbol = ">="
            }
            parameters.append(operand)
            return SQLFragment(sql: "\(column) IS NOT NULL AND \(columnExpression) \(symbol) ?", isExact: true)
        }
    }

    /// `field` equal to one of `values`, without one comparison per constant (a chain of `OR`s
    /// deeper than SQLite's expression limit of 1,000 fails): `col IN (?, ?, …)` for up to
    /// ``parameterListLimit`` constants, or one parameter holding a JSON array,
    /// `col IN (SELECT value FROM json_each(?))`, for integer, text and UUID constants of any
    /// number (JSON keeps those exactly; a real is not sent through JSON's decimal text). `nil`
    /// (evaluated in Swift) where a constant does not bind exactly, as for ``compare``.
    func membership(_ field: FieldPath, _ values: [StorageValue], parameters: inout SQLiteArguments) -> SQLFragment? {
        if values.count <= 8 { return equalityDisjunction(field, values, parameters: &parameters) }
        guard field.keys.count == 1 else { return nil }
        let name = field.keys[0]
        let stored = (kinds[name] ?? []).subtracting(.null)
        // No row holds a value: every row's field is nil, equal to a nil constant only.
        if stored.isEmpty { return SQLFragment(sql: values.contains(.null) ? alwaysTrue : alwaysFalse, isExact: true) }
        guard stored.isDisjoint(with: [.json, .opaque]) else { return nil }
        let column = Self.collated(name)
        var operands: [SQLiteValue] = []
        var expression: String?
        var includesNull = false
        for value in values {
            if case .null = value {
                includesNull = true
                continue
            }
            // A constant that never equals a stored value of these kinds matches no row.
            guard let (operand, columnExpression, _) = Self.bindable(value, stored: stored, column: column) else {
                if case .double(let number) = value, number.isNaN { continue }  // NaN equals nothing
                return nil
            }
            if let expression, expression != columnExpression { return nil }
            expression = columnExpression
            operands.append(operand)
        }
        var parts: [String] = []
        if includesNull { parts.append("\(column) IS NULL") }
        if let expression, !operands.isEmpty {
            if operands.count <= Self.parameterListLimit {
                operands.forEach { parameters.append($0) }
                parts.append(
                    "\(expression) IN (" + Array(repeating: "?", count: operands.count).joined(separator: ", ") + ")")
            } else {
                guard let json = Self.jsonArray(operands) else { return nil }
                parameters.append(.text(json))
                parts.append("\(expression) IN (SELECT value FROM json_each(?))")
            }
        }
        if parts.isEmpty { return SQLFragment(sql: alwaysFalse, isExact: true) }
        return SQLFragment(sql: parts.joined(separator: " OR "), isExact: true)
    }

    /// The most constants bound one by one in an `IN` list (SQLite allows 32,766 parameters).
    static let parameterListLimit = 10_000

    /// `operands` as a JSON array, if every one is an integer or text.
    private static func jsonArray(_ operands: [SQLiteValue]) -> String? {
        var items: [String] = []
        items.reserveCapacity(operands.count)
        for operand in operands {
            switch operand {
            case .integer(let number): items.append(String(number))
            case .text(let text):
                guard let data = try? JSONSerialization.data(withJSONObject: [text], options: [.fragmentsAllowed]),
                    let encoded = String(data: data, encoding: .utf8)
                else { return nil }
                items.append(String(encoded.dropFirst().dropLast()))
            default: return nil
            }
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    /// The rows `field != value` (or `!(field == value)`) holds for, as three conditions whose
    /// rows are disjoint and together exactly those rows: `IS NULL`, `< value`, `> value`. Each is
    /// a range of an index on the column, where the negation itself is a scan of every entry; a
    /// count sums the three. `nil` unless the column has held one kind of value that SQL orders
    /// totally (then every row is `NULL`, below, equal to or above the value, and the equality is
    /// exact), and `value` is one the equality binds as it is.
    func complement(of filter: StorageFilter) -> [(sql: String, arguments: [SQLiteValue])]? {
        let field: FieldPath
        let value: StorageValue
        switch filter {
        case .compare(let path, .notEqual, let constant), .not(.compare(let path, .equal, let constant)):
            (field, value) = (path, constant)
        default: return nil
        }
        guard field.keys.count == 1, !value.isNull else { return nil }
        let stored = (kinds[field.keys[0]] ?? []).subtracting(.null)
        let totallyOrdered: [SQLiteFieldKinds] = [.bool, .integer, .real, .date, .string, .uuid]
        guard totallyOrdered.contains(stored) else { return nil }
        let column = Self.collated(field.keys[0])
        var parameters = SQLiteArguments()
        guard let equality = compare(field, .equal, value, parameters: &parameters), equality.isExact,
            equality.sql == "\(column) IS ?", parameters.values.count == 1
        else { return nil }
        let operand = parameters.values[0]
        return [("\(column) IS NULL", []), ("\(column) < ?", [operand]), ("\(column) > ?", [operand])]
    }

    /// The constant to bind for `value` against a column holding `stored`, the column expression
    /// to compare it with, and whether the kind is ordered; `nil` when SQL would not compare them
    /// as Swift does.
    private static func bindable(_ value: StorageValue, stored: SQLiteFieldKinds, column: String)
        -> (SQLiteValue, String, Bool)?
    {
        switch value {
        case .bool(let flag) where stored == .bool:
            return (.integer(flag ? 1 : 0), column, false)
        case .int(let number) where stored == .integer:
            return (.integer(number), column, true)
        case .uint(let number) where stored == .integer && number <= UInt64(Int64.max):
            return (.integer(Int64(number)), column, true)
        case .int(let number) where stored == .real:
            return (.real(Double(number)), column, true)  // Swift compares Double(int) with the double
        case .uint(let number) where stored == .real:
            return (.real(Double(number)), column, true)
        case .double(let number) where stored == .real && !number.isNaN:
            return (.real(number), column, true)
        case .double(let number) where stored == .integer && !number.isNaN:
            return (.real(number), "CAST(\(column) AS REAL)", true)  // Swift compares Double(int); no index
        case .date(let date) where stored == .date:
            return (.real(date.timeIntervalSinceReferenceDate), column, true)
        case .string(let string) where stored == .string:
            return (.text(string), column, true)  // the column's DAOKIT collation compares as Swift
        case .uuid(let uuid) where stored == .uuid:
            return (.text(uuid.uuidString), column, true)
        default:
            return nil
        }
    }

    /// The `ORDER BY` term for a sort key: `nil` when SQL cannot order as Swift does, empty when
    /// the key leaves every row tied.
    func orderTerm(_ key: StorageSortKey) -> String? {
        guard key.field.keys.count == 1 else { return nil }
        let stored = (kinds[key.field.keys[0]] ?? []).subtracting(.null)
        let direction = key.order == .forward ? "ASC" : "DESC"
        let column = Self.collated(key.field.keys[0])
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

/// A query in SQLite's SQL; ``SQLQueryTranslation/arguments`` are its condition's constants.
typealias SQLiteQueryTranslation = SQLQueryTranslation<SQLiteArguments>

extension SQLQueryTranslation where Parameters == SQLiteArguments {
    /// Translates `query` for a table whose columns have held `kinds` (by column name).
    init(_ query: StorageQuery, kinds: [String: SQLiteFieldKinds]) {
        self.init(query, dialect: SQLiteDialect(kinds: kinds), parameters: SQLiteArguments())
    }

    /// The values bound to the condition's `?`, in order.
    var arguments: [SQLiteValue] { parameters.values }
}

/// The values a condition binds to its `?`, in order.
struct SQLiteArguments: SQLParameterList {
    private(set) var values: [SQLiteValue] = []

    var count: Int { values.count }

    mutating func append(_ value: SQLiteValue) {
        values.append(value)
    }

    mutating func removeAll(after count: Int) {
        values.removeSubrange(count...)
    }
}
