import Foundation

/// A stored field's value as a query sees it: the representation ``EntityMapper`` gives a value.
///
/// Queries compare a field with constants carried in this form, so a constant compares the way
/// the stored field compares: signed integers of every width are `int`, unsigned ones `uint`,
/// `Float` and `Double` are `double`; `Date`, `UUID`, `URL`, `Data` and `Decimal` keep their own
/// type; an enum with a raw value is its raw value. A missing field, `nil`, and a field that holds
/// an array or a nested container (which a query cannot compare) are all ``null``.
///
/// Ordering (``compare(_:_:)``) follows each type's own `<`; numbers of different kinds compare by
/// value; ``null`` sorts before every other value, as `nil` does in `SortDescriptor`.
public enum StorageValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case string(String)
    case date(Date)
    case uuid(UUID)
    case url(URL)
    case data(Data)
    case decimal(Decimal)

    /// Whether this is ``null``.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// How `lhs` and `rhs` are ordered, or `nil` when they cannot be ordered: values of
    /// unrelated kinds, `Bool`s, `Data` and `URL`s (none of which is `Comparable` in Swift), and
    /// `Double.nan`. ``null`` is ordered before everything else and the same as itself.
    public static func compare(_ lhs: StorageValue, _ rhs: StorageValue) -> ComparisonResult? {
        switch (lhs, rhs) {
        case (.null, .null): return .orderedSame
        case (.null, _): return .orderedAscending
        case (_, .null): return .orderedDescending
        case (.int(let a), .int(let b)): return order(a, b)
        case (.uint(let a), .uint(let b)): return order(a, b)
        case (.int(let a), .uint(let b)): return a < 0 ? .orderedAscending : order(UInt64(a), b)
        case (.uint(let a), .int(let b)): return b < 0 ? .orderedDescending : order(a, UInt64(b))
        case (.double(let a), .double(let b)): return order(a, b)
        case (.double(let a), .int(let b)): return order(a, Double(b))
        case (.int(let a), .double(let b)): return order(Double(a), b)
        case (.double(let a), .uint(let b)): return order(a, Double(b))
        case (.uint(let a), .double(let b)): return order(Double(a), b)
        case (.string(let a), .string(let b)): return order(a, b)
        case (.date(let a), .date(let b)): return order(a, b)
        case (.uuid(let a), .uuid(let b)): return order(a.uuidString, b.uuidString)
        case (.decimal(let a), .decimal(let b)): return order(a, b)
        default: return nil
        }
    }

    /// Whether the values are equal the way Swift's `==` sees the values they came from: numbers
    /// of different kinds by value, `String`s by canonical equivalence, `-0.0 == 0.0`,
    /// `Double.nan` equal to nothing.
    public static func equal(_ lhs: StorageValue, _ rhs: StorageValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.url(let a), .url(let b)): return a == b
        case (.data(let a), .data(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        default: return compare(lhs, rhs) == .orderedSame
        }
    }

    @inline(__always)
    private static func order<T: Comparable>(_ a: T, _ b: T) -> ComparisonResult? {
        if a < b { return .orderedAscending }
        if b < a { return .orderedDescending }
        return a == b ? .orderedSame : nil  // only NaN is neither
    }
}

extension StorageValue {
    /// The value `value` is stored as: its ``StorageValue`` when it is a value a query can
    /// compare (a number, `Bool`, `String`, `Date`, `UUID`, `URL`, `Data`, `Decimal`, an optional
    /// of one, or a type that encodes itself as one, such as an enum with a raw value), ``null``
    /// for `nil`, and `nil` when it encodes as a container or cannot be encoded.
    public init?(encoding value: some Encodable) {
        guard let captured = FieldExtractor.scalar(of: value) else { return nil }
        self = captured
    }
}
