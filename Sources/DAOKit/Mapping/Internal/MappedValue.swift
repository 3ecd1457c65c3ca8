import Foundation

/// The in-memory representation a value takes between ``EntityMapper``'s encoder and decoder.
///
/// Every payload is typed, so no value is ever boxed as `Any` or `NSNumber` and nothing is
/// formatted as text: `Date`, `Data`, `URL`, `UUID` and `Decimal` travel as themselves.
/// Signed integers of every width are widened to `Int64` and unsigned ones to `UInt64`; the
/// decoder narrows them again with range checks (see `ValueConversion.swift`). `Int128` and
/// `UInt128` values that fit 64 bits are stored the same way, so they convert to narrower types
/// like any other integer; only wider ones take the `wide…` cases.
///
/// The largest payload (`Decimal`, 20 bytes) keeps the enum at a 24-byte stride, the same as a
/// 16-byte payload would.
enum MappedValue {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    /// An `Int128` outside the range of `Int64`, as its two halves.
    case wideInt(high: Int64, low: UInt64)
    /// A `UInt128` above `UInt64.max`, as its two halves.
    case wideUInt(high: UInt64, low: UInt64)
    case float(Float)
    case double(Double)
    case string(String)
    case date(Date)
    case data(Data)
    case url(URL)
    case uuid(UUID)
    case decimal(Decimal)
    case keyed(ContainerNode)
    case unkeyed(ContainerNode)

    /// A short name of the kind of value, for error messages: `found string`.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "Bool"
        case .int, .uint, .wideInt, .wideUInt: return "integer"
        case .float, .double: return "floating-point number"
        case .string: return "String"
        case .date: return "Date"
        case .data: return "Data"
        case .url: return "URL"
        case .uuid: return "UUID"
        case .decimal: return "Decimal"
        case .keyed: return "keyed container"
        case .unkeyed: return "unkeyed container"
        }
    }

    /// Whether a `Data` is being read from an array of bytes, `Data`'s own Codable form, which
    /// its `init(from:)` rather than the primitive path must handle.
    @inline(__always)
    func isDataAsBytes(_ kind: PrimitiveKind) -> Bool {
        if kind == .data, case .unkeyed = self { return true }
        return false
    }

    /// Whether the payload is plain bits — nothing to retain or release — so destroying the value
    /// does nothing (see `NodeBuffer.removeAll(retainingAtMost:skipping:)`).
    @inline(__always)
    var holdsNoReference: Bool {
        switch self {
        case .null, .bool, .int, .uint, .wideInt, .wideUInt, .float, .double, .date, .uuid, .decimal: return true
        case .string, .data, .url, .keyed, .unkeyed: return false
        }
    }

    var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
