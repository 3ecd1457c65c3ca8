import Foundation

// The mapper's one piece of cleverness for speed: recognising Foundation's and the standard
// library's value types by metatype identity (`T.self == String.self`) instead of `as?` casts,
// which would look up protocol conformances at run time, and reinterpreting the value with
// `unsafeBitCast`.
//
// Invariant: every `unsafeBitCast(x, to: U.self)` below sits behind a check that `T.self ==
// U.self`, so it converts a value to its own type and cannot reinterpret memory as anything else.
// Checks are grouped by `MemoryLayout<T>.size` first, a single load from the type's value
// witness table, so a user type that is not a primitive pays for only a few comparisons.

extension MappedValue {
    /// The representation of `value` when its type is one the mapper carries as a value
    /// (numbers, `Bool`, `String`, `Date`, `URL`, `Data`, `UUID`, `Decimal`); `nil` for every
    /// other type, which is encoded through its own `encode(to:)`.
    ///
    /// `value` is borrowed: an initializer's parameter is otherwise owned, and every caller would
    /// copy its value first (through the type's value witness, retaining whatever it holds) just to
    /// ask.
    @inline(__always)
    init?<T>(primitive value: borrowing T) {
        guard let kind = PrimitiveKind(T.self) else { return nil }
        switch kind {
        case .string: self = .string(unsafeBitCast(value, to: String.self))
        case .int: self = .int(Int64(unsafeBitCast(value, to: Int.self)))
        case .bool: self = .bool(unsafeBitCast(value, to: Bool.self))
        case .double: self = .double(unsafeBitCast(value, to: Double.self))
        case .date: self = .date(unsafeBitCast(value, to: Date.self))
        case .url: self = .url(unsafeBitCast(value, to: URL.self))
        case .uuid: self = .uuid(unsafeBitCast(value, to: UUID.self))
        case .data: self = .data(unsafeBitCast(value, to: Data.self))
        case .decimal: self = .decimal(unsafeBitCast(value, to: Decimal.self))
        case .float: self = .float(unsafeBitCast(value, to: Float.self))
        case .int8: self = .int(Int64(unsafeBitCast(value, to: Int8.self)))
        case .int16: self = .int(Int64(unsafeBitCast(value, to: Int16.self)))
        case .int32: self = .int(Int64(unsafeBitCast(value, to: Int32.self)))
        case .int64: self = .int(unsafeBitCast(value, to: Int64.self))
        case .uint: self = .uint(UInt64(unsafeBitCast(value, to: UInt.self)))
        case .uint8: self = .uint(UInt64(unsafeBitCast(value, to: UInt8.self)))
        case .uint16: self = .uint(UInt64(unsafeBitCast(value, to: UInt16.self)))
        case .uint32: self = .uint(UInt64(unsafeBitCast(value, to: UInt32.self)))
        case .uint64: self = .uint(unsafeBitCast(value, to: UInt64.self))
        }
    }
}

extension CodingPosition {
    /// Decodes the value at this position as `T`, a type the mapper carries as a value (`kind`
    /// says which).
    ///
    /// Returns `T` itself, not `T?`: a generic optional would make the runtime look up
    /// `Optional<T>`'s metadata on every call, which used to cost more than the decoding. A method
    /// of the position rather than of the value: this is not inlined, and calling it on a value
    /// that lies in a node would copy the value first (a retain and release for a string or URL).
    ///
    /// - Throws: `DecodingError` when the value cannot become a `T` (see `ValueConversion.swift`).
    func primitive<T>(_ kind: PrimitiveKind, as type: T.Type) throws -> T {
        switch kind {
        case .string: return unsafeBitCast(try value.string(at: self), to: T.self)
        case .int: return unsafeBitCast(try value.integer(Int.self, at: self), to: T.self)
        case .bool: return unsafeBitCast(try value.bool(at: self), to: T.self)
        case .double: return unsafeBitCast(try value.double(at: self), to: T.self)
        case .date: return unsafeBitCast(try value.date(at: self), to: T.self)
        case .url: return unsafeBitCast(try value.url(at: self), to: T.self)
        case .uuid: return unsafeBitCast(try value.uuid(at: self), to: T.self)
        case .data: return unsafeBitCast(try value.data(at: self), to: T.self)
        case .decimal: return unsafeBitCast(try value.decimal(at: self), to: T.self)
        case .float: return unsafeBitCast(try value.float(at: self), to: T.self)
        case .int8: return unsafeBitCast(try value.integer(Int8.self, at: self), to: T.self)
        case .int16: return unsafeBitCast(try value.integer(Int16.self, at: self), to: T.self)
        case .int32: return unsafeBitCast(try value.integer(Int32.self, at: self), to: T.self)
        case .int64: return unsafeBitCast(try value.integer(Int64.self, at: self), to: T.self)
        case .uint: return unsafeBitCast(try value.integer(UInt.self, at: self), to: T.self)
        case .uint8: return unsafeBitCast(try value.integer(UInt8.self, at: self), to: T.self)
        case .uint16: return unsafeBitCast(try value.integer(UInt16.self, at: self), to: T.self)
        case .uint32: return unsafeBitCast(try value.integer(UInt32.self, at: self), to: T.self)
        case .uint64: return unsafeBitCast(try value.integer(UInt64.self, at: self), to: T.self)
        }
    }
}

/// The types the mapper carries as values rather than through their own Codable conformance.
enum PrimitiveKind {
    case string, int, bool, double, date, url, uuid, data, decimal, float
    case int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64

    /// The kind of `T`, or `nil` when `T` is decoded through its own `init(from:)`.
    @inline(__always)
    init?<T>(_ type: T.Type) {
        switch MemoryLayout<T>.size {
        case 16:
            if T.self == String.self {
                self = .string
            } else if T.self == URL.self {
                self = .url
            } else if T.self == UUID.self {
                self = .uuid
            } else if T.self == Data.self {
                self = .data
            } else {
                return nil
            }
        case 8:
            if T.self == Int.self {
                self = .int
            } else if T.self == Double.self {
                self = .double
            } else if T.self == Date.self {
                self = .date
            } else if T.self == Int64.self {
                self = .int64
            } else if T.self == UInt.self {
                self = .uint
            } else if T.self == UInt64.self {
                self = .uint64
            } else {
                return nil
            }
        case 1:
            if T.self == Bool.self {
                self = .bool
            } else if T.self == Int8.self {
                self = .int8
            } else if T.self == UInt8.self {
                self = .uint8
            } else {
                return nil
            }
        case 4:
            if T.self == Float.self {
                self = .float
            } else if T.self == Int32.self {
                self = .int32
            } else if T.self == UInt32.self {
                self = .uint32
            } else if T.self == Int.self {
                self = .int
            } else if T.self == UInt.self {
                self = .uint
            } else {
                return nil
            }
        case 2:
            if T.self == Int16.self {
                self = .int16
            } else if T.self == UInt16.self {
                self = .uint16
            } else {
                return nil
            }
        case MemoryLayout<Decimal>.size:
            if T.self == Decimal.self { self = .decimal } else { return nil }
        default:
            return nil
        }
    }
}
