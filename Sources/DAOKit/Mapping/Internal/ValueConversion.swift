import Foundation

/// Where a value sits in the mapped tree: entry `index` of `node`. Turned into a coding path only
/// when an error needs one.
///
/// A position lives only for the duration of one read, while the container reading it holds the
/// node, so it refers to the node without retaining it: that saves a retain and a release on
/// every field.
struct CodingPosition {
    unowned(unsafe) let node: ContainerNode
    let index: Int

    var codingPath: [any CodingKey] { node.codingPath(appending: index) }

    /// The value at this position, read where it lies (an address, so reading it copies nothing).
    var value: MappedValue {
        unsafeAddress { UnsafePointer(node.values.pointer(at: index)) }
    }
}

/// Attached to a `DecodingError.typeMismatch` the mapper throws, to say what it found instead.
struct FoundValueKind: Error, CustomStringConvertible {
    let name: String
    var description: String { name }
}

/// Attached to a `DecodingError.dataCorrupted` the mapper throws when a number does not fit.
struct NumberNotRepresentable: Error, CustomStringConvertible {
    let value: String
    let target: String
    var description: String { "\(value) is not representable as \(target)" }
}

// Conversions from a mapped value to the types the mapper carries as values.
//
// The rule is "never a silent wrong value": a number converts only when the target type holds it
// exactly (no wrapping, no truncation, no rounding); `Bool` and `String` are never numbers. The few
// conversions between kinds mirror what a `JSONEncoder`/`JSONDecoder` round trip with default
// strategies does where that round trip is lossless: `Date` ↔ seconds since the reference date,
// `URL` ↔ its absolute string, `UUID` ↔ its `uuidString`.
//
// Each conversion is split in two: an inlined check for the value that needs no conversion (what a
// mapping of matching types nearly always reads), and the full conversion behind it, never
// inlined. Inlined whole, a conversion's calls made every read copy the value out of its node (a
// retain and release, through an outlined copy) before looking at it.
extension MappedValue {
    @inline(__always)
    func bool(at position: CodingPosition) throws -> Bool {
        if case .bool(let value) = self { return value }
        return try convertedBool(at: position)
    }

    @inline(never)
    private func convertedBool(at position: CodingPosition) throws -> Bool {
        if case .bool(let value) = self { return value }
        throw mismatch(Bool.self, at: position)
    }

    @inline(__always)
    func string(at position: CodingPosition) throws -> String {
        if case .string(let value) = self { return value }
        return try convertedString(at: position)
    }

    @inline(never)
    private func convertedString(at position: CodingPosition) throws -> String {
        switch self {
        case .string(let value): return value
        case .url(let value): return value.absoluteString
        case .uuid(let value): return value.uuidString
        default: throw mismatch(String.self, at: position)
        }
    }

    @inline(__always)
    func integer<I: FixedWidthInteger>(_ type: I.Type, at position: CodingPosition) throws -> I {
        if case .int(let value) = self, let exact = I(exactly: value) { return exact }
        return try convertedInteger(I.self, at: position)
    }

    @inline(never)
    private func convertedInteger<I: FixedWidthInteger>(_ type: I.Type, at position: CodingPosition) throws -> I {
        switch self {
        case .int(let value):
            if let exact = I(exactly: value) { return exact }
            throw notRepresentable(String(value), as: I.self, at: position)
        case .uint(let value):
            if let exact = I(exactly: value) { return exact }
            throw notRepresentable(String(value), as: I.self, at: position)
        case .double(let value):
            if let exact = I(exactly: value) { return exact }
            throw notRepresentable("\(value)", as: I.self, at: position)
        case .float(let value):
            if let exact = I(exactly: value) { return exact }
            throw notRepresentable("\(value)", as: I.self, at: position)
        case .wideInt, .wideUInt:
            // Only 128-bit types hold these, and they are decoded by `wideInteger`.
            throw notRepresentable(wideDescription, as: I.self, at: position)
        case .decimal(let value):
            // Through the decimal text, as a JSON round trip reads a number; only whole values
            // parse as integers, and the parse fails rather than wraps when out of range.
            if let exact = I("\(value)") { return exact }
            throw notRepresentable("\(value)", as: I.self, at: position)
        default:
            throw mismatch(I.self, at: position)
        }
    }

    @inline(__always)
    func double(at position: CodingPosition) throws -> Double {
        if case .double(let value) = self { return value }
        return try convertedDouble(at: position)
    }

    @inline(never)
    private func convertedDouble(at position: CodingPosition) throws -> Double {
        switch self {
        case .double(let value): return value
        case .float(let value): return Double(value)
        case .int(let value):
            if let exact = Double(exactly: value) { return exact }
            throw notRepresentable(String(value), as: Double.self, at: position)
        case .uint(let value):
            if let exact = Double(exactly: value) { return exact }
            throw notRepresentable(String(value), as: Double.self, at: position)
        case .date(let value):
            return value.timeIntervalSinceReferenceDate
        case .wideInt, .wideUInt:
            if let exact = wideAsDouble { return exact }
            throw notRepresentable(wideDescription, as: Double.self, at: position)
        case .decimal(let value):
            // Only when the Double reads back as the same decimal: nothing is rounded away.
            if let double = Double("\(value)"), Decimal(string: "\(double)") == value { return double }
            throw notRepresentable("\(value)", as: Double.self, at: position)
        default:
            throw mismatch(Double.self, at: position)
        }
    }

    @inline(__always)
    func float(at position: CodingPosition) throws -> Float {
        if case .float(let value) = self { return value }
        return try convertedFloat(at: position)
    }

    @inline(never)
    private func convertedFloat(at position: CodingPosition) throws -> Float {
        switch self {
        case .float(let value): return value
        case .double(let value):
            if value.isNaN { return .nan }
            if let exact = Float(exactly: value) { return exact }
            throw notRepresentable("\(value)", as: Float.self, at: position)
        case .int(let value):
            if let exact = Float(exactly: value) { return exact }
            throw notRepresentable(String(value), as: Float.self, at: position)
        case .uint(let value):
            if let exact = Float(exactly: value) { return exact }
            throw notRepresentable(String(value), as: Float.self, at: position)
        case .wideInt, .wideUInt:
            if let wide = wideAsDouble, let exact = Float(exactly: wide) { return exact }
            throw notRepresentable(wideDescription, as: Float.self, at: position)
        case .decimal(let value):
            if let float = Float("\(value)"), Decimal(string: "\(float)") == value { return float }
            throw notRepresentable("\(value)", as: Float.self, at: position)
        default:
            throw mismatch(Float.self, at: position)
        }
    }

    @inline(__always)
    func date(at position: CodingPosition) throws -> Date {
        if case .date(let value) = self { return value }
        return try convertedDate(at: position)
    }

    @inline(never)
    private func convertedDate(at position: CodingPosition) throws -> Date {
        switch self {
        case .date(let value): return value
        case .double, .float, .int, .uint:
            return Date(timeIntervalSinceReferenceDate: try double(at: position))
        default:
            throw mismatch(Date.self, at: position)
        }
    }

    @inline(__always)
    func url(at position: CodingPosition) throws -> URL {
        if case .url(let value) = self { return value }
        return try convertedURL(at: position)
    }

    @inline(never)
    private func convertedURL(at position: CodingPosition) throws -> URL {
        switch self {
        case .url(let value): return value
        case .string(let text):
            if let value = URL(string: text) { return value }
            throw corrupted("Invalid URL string \(text.debugDescription)", at: position)
        default:
            throw mismatch(URL.self, at: position)
        }
    }

    @inline(__always)
    func uuid(at position: CodingPosition) throws -> UUID {
        if case .uuid(let value) = self { return value }
        return try convertedUUID(at: position)
    }

    @inline(never)
    private func convertedUUID(at position: CodingPosition) throws -> UUID {
        switch self {
        case .uuid(let value): return value
        case .string(let text):
            if let value = UUID(uuidString: text) { return value }
            throw corrupted("Invalid UUID string \(text.debugDescription)", at: position)
        default:
            throw mismatch(UUID.self, at: position)
        }
    }

    @inline(__always)
    func data(at position: CodingPosition) throws -> Data {
        if case .data(let value) = self { return value }
        return try convertedData(at: position)
    }

    @inline(never)
    private func convertedData(at position: CodingPosition) throws -> Data {
        if case .data(let value) = self { return value }
        throw mismatch(Data.self, at: position)
    }

    @inline(__always)
    func decimal(at position: CodingPosition) throws -> Decimal {
        if case .decimal(let value) = self { return value }
        return try convertedDecimal(at: position)
    }

    @inline(never)
    private func convertedDecimal(at position: CodingPosition) throws -> Decimal {
        switch self {
        case .decimal(let value): return value
        case .int(let value): return Decimal(value)
        case .uint(let value): return Decimal(value)
        case .double(let value) where value.isFinite:
            // As a JSON round trip would: the shortest decimal text that reads back as `value`.
            if let exact = Decimal(string: "\(value)") { return exact }
            throw notRepresentable("\(value)", as: Decimal.self, at: position)
        case .float(let value) where value.isFinite:
            if let exact = Decimal(string: "\(value)") { return exact }
            throw notRepresentable("\(value)", as: Decimal.self, at: position)
        case .wideInt, .wideUInt:
            if let exact = Decimal(string: wideDescription) { return exact }
            throw notRepresentable(wideDescription, as: Decimal.self, at: position)
        default:
            throw mismatch(Decimal.self, at: position)
        }
    }

    /// `valueNotFound` for a null, `typeMismatch` naming what was found for anything else.
    func mismatch(_ expected: Any.Type, at position: CodingPosition) -> DecodingError {
        mismatch(expected, codingPath: position.codingPath)
    }

    func mismatch(_ expected: Any.Type, codingPath: [any CodingKey]) -> DecodingError {
        if isNull {
            return .valueNotFound(
                expected,
                DecodingError.Context(
                    codingPath: codingPath,
                    debugDescription: "Expected \(expected) but found null"))
        }
        return .typeMismatch(
            expected,
            DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "Expected \(expected) but found \(kindName)",
                underlyingError: FoundValueKind(name: kindName)))
    }

    func notRepresentable(_ text: String, as target: Any.Type, at position: CodingPosition) -> DecodingError {
        let detail = NumberNotRepresentable(value: text, target: "\(target)")
        return .dataCorrupted(
            DecodingError.Context(
                codingPath: position.codingPath,
                debugDescription: "Number \(detail)",
                underlyingError: detail))
    }

    private func corrupted(_ message: String, at position: CodingPosition) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: position.codingPath, debugDescription: message))
    }
}
