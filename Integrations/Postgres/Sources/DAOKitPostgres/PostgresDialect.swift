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
    func compare(_ field: FieldPath, _ comparison: StorageComparison, _ value: StorageValue,
                 parameters binds: inout StatementParameters) -> SQLFragment? {
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
        guard let (left, right, orderable) = Self.operands(value, stored: stored, name: name, binds: &binds) else { return nil }
        let symbol: String
        switch comparison {
        case .equal: symbol = "="
        case .notEqual:
            // NULL (a nil field) is unequal to every constant.
            return SQLFragment(sql: "NOT COALESCE(\(left) = \(right), FALSE)", isExact: true)
        case .less: symbol = "<"
        case .lessOrEqual: symbol = "<="
        case .greater: symbol = ">"
        case .greaterOrEqual: symbol = ">="
        }
        // Swift cannot order two Bools: every ordering comparison is false.
        if comparison != .equal && !orderable {
            binds.removeAll(after: mark)
            return SQLFragment(sql: "FALSE", isExact: true)
        }
        return SQLFragment(sql: "\(left) \(symbol) \(right)", isExact: true)
    }

    /// The field expression and the bound constant to compare, and whether the kind is ordered;
    /// `nil` when PostgreSQL would not compare them as Swift does.
    private static func operands(_ value: StorageValue, stored: Set<JSONRecord.FieldKind>, name: String,
                                 binds: inout StatementParameters) -> (String, String, Bool)? {
        func parameter(_ text: String, cast: String = "") -> String {
            binds.append(text: text) + cast
        }
        let number = PostgresSchema.numberExpression(name)
        switch value {
        case let .bool(flag) where stored == [.bool]:
            return (PostgresSchema.jsonExpression(name), flag ? "'true'::jsonb" : "'false'::jsonb", false)
        case let .int(integer) where stored == [.integer]:
            return (number, parameter(String(integer), cast: "::numeric"), true)
        case let .uint(integer) where stored == [.integer]:
            return (number, parameter(String(integer), cast: "::numeric"), true)
        case let .int(integer) where stored == [.real]:
            return (number, parameter(Double(integer).description, cast: "::numeric"), true)  // Swift compares Double(int)
        case let .uint(integer) where stored == [.real]:
            return (number, parameter(Double(integer).description, cast: "::numeric"), true)
        case let .double(real) where stored == [.real] && real.isFinite:
            return (number, parameter(real.description, cast: "::numeric"), true)
        case let .double(real) where stored == [.integer] && real.isFinite:
            return ("\(number)::float8", parameter(real.description, cast: "::float8"), true)  // Swift compares Double(int)
        case let .date(date) where stored == [.date] && date.timeIntervalSinceReferenceDate.isFinite:
            return (number, parameter(date.timeIntervalSinceReferenceDate.description, cast: "::numeric"), true)
        case let .string(string) where stored == [.asciiString] && string.utf8.allSatisfy({ $0 < 0x80 }):
            return (PostgresSchema.textExpression(name), parameter(string), true)
        case let .uuid(uuid) where stored == [.uuid]:
            return (PostgresSchema.textExpression(name), parameter(uuid.uuidString), true)
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
            return PostgresSchema.isPresent(name, kinds: stored).map { "\($0) \(key.order == .forward ? "ASC" : "DESC")" }
        }
        if key.stringComparator != nil { return nil }
        if stored == [.integer] || stored == [.real] || stored == [.date] {
            return "\(PostgresSchema.numberExpression(name)) \(direction)"
        }
        if stored == [.asciiString] || stored == [.uuid] {
            return "\(PostgresSchema.textExpression(name)) \(direction)"
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
