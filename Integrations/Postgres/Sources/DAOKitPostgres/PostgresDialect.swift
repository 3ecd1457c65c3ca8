import DAOKit
import DAOKitSQL
import Foundation
import PostgresNIO

/// PostgreSQL's part of a ``SQLQueryTranslation`` over the `jsonb` records: how a field compares
/// and orders as ``StorageQuery/apply(to:)`` does.
///
/// A JSON number may be an integer, a `Double`, a `Date` or a `Decimal`, a JSON string a
/// `String`, a `UUID`, a `URL` or Base64 `Data`, and Swift compares each kind its own way. So a
/// condition becomes SQL only where the kinds the field has ever held (`daokit_field_kinds`, see
/// ``JSONRecord/FieldKind``) make PostgreSQL's answer Swift's for every row:
/// - integers, reals and dates compare as `numeric` (a `Double` is stored as its shortest
///   round-trip decimal, so `numeric` orders and equates them as `Double` does), an integer field
///   with a `Double` constant as `float8` (Swift converts the integer);
/// - strings only when every stored value and the constant are ASCII, in the `C` collation (byte
///   order, which is Swift's order for ASCII; PostgreSQL has no collation that orders Unicode as
///   Swift does), and UUIDs as their upper-case text;
/// - `Bool` only for (in)equality; `nil` as a missing key, JSON `null`, or a container (all
///   `nil` to a query; a URL with a base is an object too, so a field that held both is left
///   to Swift);
/// - every fragment is NULL only where Swift's answer is false, and a negation is wrapped in
///   `COALESCE(…, FALSE)`, so `NOT` means Swift's `!`;
/// - anything else — nested paths, prefix and contains, `Decimal`, `URL`, `Data`, non-ASCII
///   strings, mixed kinds — stays in Swift.
struct PostgresDialect: SQLDialect {
    /// The kinds each field has held, by field name.
    let kinds: [String: Set<JSONRecord.FieldKind>]

    var alwaysTrue: String { "TRUE" }
    var alwaysFalse: String { "FALSE" }

    func negation(of condition: String) -> String { "NOT COALESCE((\(condition)), FALSE)" }

    /// `field <comparison> value`, exact, or `nil`.
    func compare(
        _ field: FieldPath, _ comparison: StorageComparison, _ value: StorageValue,
        parameters binds: inout StatementParameters
    ) -> SQLFragment? {
        guard field.keys.count == 1 else { return nil }
        let name = field.keys[0]
        let stored = kinds[name] ?? []
        if stored.isEmpty {
            // No row holds a value: the field is nil everywhere.
            return SQLFragment(sql: comparison.holds(.null, value) ? "TRUE" : "FALSE", isExact: true)
        }
        if stored.contains(.opaque) { return nil }
        if case .null = value {
            switch comparison {
            case .equal, .notEqual:
                guard let present = PostgresSchema.isPresent(name, kinds: stored) else { return nil }
                return SQLFragment(sql: comparison == .equal ? "NOT \(present)" : present, isExact: true)
            default: return SQLFragment(sql: "FALSE", isExact: true)
            }
        }
        let mark = binds.count
        guard let (form, constant) = Self.comparand(value, only: stored.count == 1 ? stored.first : nil) else {
            return nil
        }
        let left = form.expression(name)
        let right = binds.append(text: constant) + form.cast
        let symbol: String
        // What the prefixes of two strings must satisfy for the strings to satisfy `symbol`.
        let prefixSymbol: String
        switch comparison {
        case .equal: (symbol, prefixSymbol) = ("=", "=")
        case .notEqual:
            // NULL (a nil field) is unequal to every constant.
            return SQLFragment(sql: "NOT COALESCE(\(left) = \(right), FALSE)", isExact: true)
        case .less: (symbol, prefixSymbol) = ("<", "<=")
        case .lessOrEqual: (symbol, prefixSymbol) = ("<=", "<=")
        case .greater: (symbol, prefixSymbol) = (">", ">=")
        case .greaterOrEqual: (symbol, prefixSymbol) = (">=", ">=")
        }
        // Swift cannot order two Bools: every ordering comparison is false.
        if comparison != .equal && !form.isOrdered {
            binds.removeAll(after: mark)
            return SQLFragment(sql: "FALSE", isExact: true)
        }
        if form == .text {
            return SQLFragment(sql: Self.textComparison(name, symbol, prefixSymbol, right), isExact: true)
        }
        return SQLFragment(sql: "\(left) \(symbol) \(right)", isExact: true)
    }

    /// The text field `name` compared with `constant` (SQL), through the prefixes an index holds
    /// (see PostgresSchema.prefixExpression): narrowed by them, so that the index serves the
    /// comparison, and decided by the whole values.
    private static func textComparison(_ name: String, _ symbol: String, _ prefixSymbol: String, _ constant: String)
        -> String
    {
        "\(PostgresSchema.prefixExpression(name)) \(prefixSymbol) \(PostgresSchema.prefix(of: constant)) "
            + "AND \(FieldForm.text.expression(name)) \(symbol) \(constant)"
    }

    /// The most string constants a membership compares one by one, each through the index of
    /// prefixes; a longer list is one semi-join on the whole values, which PostgreSQL hashes.
    static let textsComparedOneByOne = 32

    /// `field` equal to one of `values`, with one parameter per form of comparison (see
    /// ``FieldForm``) whatever their number: `expression IN (SELECT v::type FROM unnest(…) AS v)`.
    ///
    /// A semi-join rather than `expression = ANY($1)`: for a list bound as a parameter,
    /// PostgreSQL compares every row with every constant in turn, even in a plan made for the
    /// list's value, where a semi-join hashes the list or looks each constant up in an index
    /// (see Benchmarks/RESULTS.md). Up to ``textsComparedOneByOne`` strings
    /// are compared one by one instead, through the index of prefixes. Each constant follows
    /// ``compare(_:_:_:parameters:)``'s rules; `nil` among them is the field's nil test, OR'ed.
    func membership(_ field: FieldPath, _ values: [StorageValue], parameters binds: inout StatementParameters)
        -> SQLFragment?
    {
        guard field.keys.count == 1 else { return nil }
        let name = field.keys[0]
        let stored = kinds[name] ?? []
        // Nothing stored (every row nil) or nothing SQL compares: as one comparison would.
        if stored.isEmpty || stored.contains(.opaque) || values.count == 1 {
            return equalityDisjunction(field, values, parameters: &binds)
        }
        // The constants by the form they compare with, in first-seen order; whether nil is one.
        var groups: [(form: FieldForm, constants: [String])] = []
        var includesNil = false
        var current = 0
        let only = stored.count == 1 ? stored.first : nil
        for value in values {
            if case .null = value {
                includesNil = true
                continue
            }
            guard let (form, constant) = Self.comparand(value, only: only) else { return nil }
            // Lists are mostly of one form: the group of the previous constant first.
            if current < groups.count && groups[current].form == form {
                groups[current].constants.append(constant)
            } else if let position = groups.firstIndex(where: { $0.form == form }) {
                current = position
                groups[position].constants.append(constant)
            } else {
                current = groups.count
                groups.append((form, [constant]))
            }
        }
        var parts: [SQLFragment] = []
        if includesNil {
            guard let isNil = compare(field, .equal, .null, parameters: &binds) else { return nil }
            parts.append(isNil)
        }
        for group in groups {
            if group.form == .text && group.constants.count <= Self.textsComparedOneByOne {
                // Few strings: each through the index of prefixes, which a semi-join on whole
                // values would not use.
                for constant in group.constants {
                    parts.append(
                        SQLFragment(
                            sql: Self.textComparison(name, "=", "=", binds.append(text: constant)), isExact: true))
                }
                continue
            }
            let list = binds.append(texts: group.constants)
            parts.append(
                SQLFragment(
                    sql: "\(group.form.expression(name)) IN (SELECT v\(group.form.cast) FROM unnest(\(list)) AS v)",
                    isExact: true))
        }
        return parts.count == 1
            ? parts[0] : SQLFragment(sql: parts.map { "(\($0.sql))" }.joined(separator: " OR "), isExact: true)
    }

    /// The form in which a field and a constant are compared.
    enum FieldForm: Hashable {
        /// The field's `jsonb`, for a Bool: equal or not, never ordered.
        case json
        /// The field as `numeric`.
        case number
        /// The field as `float8`: an integer field compared with a `Double`, as Swift converts it.
        case numberAsDouble
        /// The field as text in byte order.
        case text

        /// The field `name` in this form.
        func expression(_ name: String) -> String {
            switch self {
            case .json: PostgresSchema.jsonExpression(name)
            case .number: PostgresSchema.numberExpression(name)
            case .numberAsDouble: PostgresSchema.numberExpression(name) + "::float8"
            case .text: PostgresSchema.textExpression(name)
            }
        }

        /// What makes a bound text constant this form's type.
        var cast: String {
            switch self {
            case .json: "::jsonb"
            case .number: "::numeric"
            case .numberAsDouble: "::float8"
            case .text: ""
            }
        }

        /// Whether Swift orders the values compared in this form.
        var isOrdered: Bool { self != .json }
    }

    /// How `value` compares with a field that has held `stored`: the form, and the constant as
    /// the text to bind; `nil` when PostgreSQL would not compare them as Swift does. A Bool's
    /// constant is its JSON. A string with NUL is left to Swift: PostgreSQL's text refuses NUL,
    /// and the stored strings hold it escaped.
    /// - Parameter only: the one kind the field has held; `nil` when it has held several, which
    ///   SQL does not compare.
    private static func comparand(_ value: StorageValue, only: JSONRecord.FieldKind?) -> (FieldForm, String)? {
        switch (value, only) {
        case (.bool(let flag), .bool?):
            return (.json, flag ? "true" : "false")
        case (.int(let integer), .integer?):
            return (.number, String(integer))
        case (.uint(let integer), .integer?):
            return (.number, String(integer))
        case (.int(let integer), .real?):
            return (.number, Double(integer).description)  // Swift compares Double(int)
        case (.uint(let integer), .real?):
            return (.number, Double(integer).description)
        case (.double(let real), .real?) where real.isFinite:
            return (.number, real.description)
        case (.double(let real), .integer?) where real.isFinite:
            return (.numberAsDouble, real.description)  // Swift compares Double(int)
        case (.date(let date), .date?) where date.timeIntervalSinceReferenceDate.isFinite:
            return (.number, date.timeIntervalSinceReferenceDate.description)
        case (.string(let string), .asciiString?) where string.utf8.allSatisfy({ $0 > 0 && $0 < 0x80 }):
            return (.text, string)
        case (.uuid(let uuid), .uuid?):
            return (.text, uuid.uuidString)
        default:
            return nil
        }
    }

    /// The `ORDER BY` term for a sort key: `nil` when PostgreSQL cannot order as Swift does, empty
    /// when the key leaves every row tied.
    func orderTerm(_ key: StorageSortKey) -> String? {
        guard key.field.keys.count == 1 else { return nil }
        let name = key.field.keys[0]
        let stored = kinds[name] ?? []
        // Swift orders nil first ascending and last descending, as the indexes do.
        let direction = key.order == .forward ? "ASC NULLS FIRST" : "DESC NULLS LAST"
        if stored.isEmpty || stored == [.container] { return "" }  // nil everywhere: all tied
        if stored.isSubset(of: [.bool, .data, .url, .container]) {
            // Swift cannot order these values among themselves: only nil comes first.
            return PostgresSchema.isPresent(name, kinds: stored).map {
                "\($0) \(key.order == .forward ? "ASC" : "DESC")"
            }
        }
        if key.stringComparator != nil { return nil }
        if stored == [.integer] || stored == [.real] || stored == [.date] {
            return "\(PostgresSchema.numberExpression(name)) \(direction)"
        }
        if stored == [.asciiString] || stored == [.uuid] {
            // The same order, which an index of the prefixes serves (see PostgresSchema.prefixExpression).
            return
                "\(PostgresSchema.prefixExpression(name)) \(direction), \(PostgresSchema.textExpression(name)) \(direction)"
        }
        return nil
    }
}

/// A query in PostgreSQL's SQL; its constants are bound as ``StatementParameters``.
typealias PostgresQueryTranslation = SQLQueryTranslation<StatementParameters>

extension SQLQueryTranslation where Parameters == StatementParameters {
    /// Translates `query` for rows whose fields have held `kinds`, appending its constants to `binds`.
    init(_ query: StorageQuery, kinds: [String: Set<JSONRecord.FieldKind>], binds: inout StatementParameters) {
        self.init(query, dialect: PostgresDialect(kinds: kinds), parameters: binds)
        binds = parameters
    }
}
