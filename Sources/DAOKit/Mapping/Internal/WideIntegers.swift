// `Int128` and `UInt128` (Swift 6; macOS 15, iOS 18, tvOS 18, watchOS 11 and later): the Codable
// requirements for them, which the standard library's defaults would refuse, and the conversions.
// The types are newer than DAOKit's deployment targets, so the representation stores their halves
// and everything that names the types is gated on availability.

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension MappedValue {
    /// The representation of an `Int128`: `.int` when it fits, else its halves.
    init(_ value: Int128) {
        if let narrow = Int64(exactly: value) {
            self = .int(narrow)
        } else {
            self = .wideInt(high: Int64(truncatingIfNeeded: value >> 64), low: UInt64(truncatingIfNeeded: value))
        }
    }

    /// The representation of a `UInt128`: `.uint` when it fits, else its halves.
    init(_ value: UInt128) {
        if let narrow = UInt64(exactly: value) {
            self = .uint(narrow)
        } else {
            self = .wideUInt(high: UInt64(truncatingIfNeeded: value >> 64), low: UInt64(truncatingIfNeeded: value))
        }
    }

    /// The value as an `Int128` or `UInt128`, when it is an integer or an integral float that fits.
    func wideInteger<I: FixedWidthInteger>(_ type: I.Type, at position: CodingPosition) throws -> I {
        switch self {
        case .wideInt(let high, let low):
            let value = Int128(high) << 64 | Int128(low)
            if let exact = I(exactly: value) { return exact }
            throw notRepresentable(String(value), as: I.self, at: position)
        case .wideUInt(let high, let low):
            let value = UInt128(high) << 64 | UInt128(low)
            if let exact = I(exactly: value) { return exact }
            throw notRepresentable(String(value), as: I.self, at: position)
        default:
            return try integer(I.self, at: position)
        }
    }
}

extension MappedValue {
    /// The decimal text of a wide integer, for error messages.
    var wideDescription: String {
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            switch self {
            case .wideInt(let high, let low): return String(Int128(high) << 64 | Int128(low))
            case .wideUInt(let high, let low): return String(UInt128(high) << 64 | UInt128(low))
            default: break
            }
        }
        return "a 128-bit integer"
    }

    /// A wide integer as a `Double`, when exactly representable (only where `Int128` exists).
    var wideAsDouble: Double? {
        if #available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *) {
            switch self {
            case .wideInt(let high, let low): return Double(exactly: Int128(high) << 64 | Int128(low))
            case .wideUInt(let high, let low): return Double(exactly: UInt128(high) << 64 | UInt128(low))
            default: break
            }
        }
        return nil
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension MappingKeyedEncodingContainer {
    mutating func encode(_ value: Int128, forKey key: Key) throws { try encodeWide(MappedValue(value), forKey: key) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { try encodeWide(MappedValue(value), forKey: key) }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension MappingUnkeyedEncodingContainer {
    mutating func encode(_ value: Int128) throws { try encodeWide(MappedValue(value)) }
    mutating func encode(_ value: UInt128) throws { try encodeWide(MappedValue(value)) }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension MappingSingleValueEncodingContainer {
    mutating func encode(_ value: Int128) throws { try encodeWide(MappedValue(value)) }
    mutating func encode(_ value: UInt128) throws { try encodeWide(MappedValue(value)) }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension MappingKeyedDecodingContainer {
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try decodeWide(Int128.self, forKey: key) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try decodeWide(UInt128.self, forKey: key) }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension MappingUnkeyedDecodingContainer {
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try decodeWide(Int128.self) }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try decodeWide(UInt128.self) }
    mutating func decodeIfPresent(_ type: Int128.Type) throws -> Int128? { try decodeWideIfPresent(Int128.self) }
    mutating func decodeIfPresent(_ type: UInt128.Type) throws -> UInt128? { try decodeWideIfPresent(UInt128.self) }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
extension MappingSingleValueDecodingContainer {
    func decode(_ type: Int128.Type) throws -> Int128 { try decodeWide(Int128.self) }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try decodeWide(UInt128.self) }
}
