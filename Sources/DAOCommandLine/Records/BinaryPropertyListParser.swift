import DAOKitInternals
import Foundation

/// Why a file is not a binary property list.
struct PropertyListSyntaxError: Error, Equatable, CustomStringConvertible {
    let reason: String
    var description: String { "truncated or not a binary property list: \(reason)" }
}

/// Reads a binary property list (`bplist00`) into a ``JSONValue``, the way `dump` shows it: dates
/// as seconds since 2001-01-01 and data as Base64, like the JSON record format stores them.
///
/// Written out rather than calling `PropertyListSerialization` because that returns `Any`, where a
/// boolean and the integer 1 cannot be told apart portably, and because every offset in a damaged
/// file has to be checked rather than trusted. The layout: an 8-byte header, the objects, a table
/// of their offsets, and a 32-byte trailer giving the table's place, its integer width, the width
/// of object references, the object count and the top object.
struct BinaryPropertyListParser {
    static let maximumDepth = 512

    private let bytes: [UInt8]
    private let offsets: [Int]
    private let referenceSize: Int
    /// Objects left to visit. A file may refer to one container from several places, so a small
    /// file can describe an exponentially large tree (each array referring to the next one twice);
    /// every visit follows a reference stored in the file, and an encoder shares only scalars, so a
    /// genuine record needs no more visits than it has bytes.
    private let budget: VisitBudget

    private final class VisitBudget {
        var remaining: Int
        init(_ remaining: Int) { self.remaining = remaining }
    }

    static func parse(_ data: Data) throws(PropertyListSyntaxError) -> JSONValue {
        let bytes = [UInt8](data)
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist00".utf8)) else {
            throw PropertyListSyntaxError(reason: "no bplist00 header and trailer")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let objectCount = readUnsigned(bytes, at: trailer + 8, size: 8)
        let topObject = readUnsigned(bytes, at: trailer + 16, size: 8)
        let tableOffset = readUnsigned(bytes, at: trailer + 24, size: 8)
        // Each comparison bounds the values the next one computes with, so nothing can overflow.
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
            objectCount > 0, topObject < objectCount, objectCount <= UInt64(trailer),
            tableOffset >= 8, tableOffset <= UInt64(trailer),
            tableOffset + objectCount * UInt64(offsetSize) <= UInt64(trailer)
        else { throw PropertyListSyntaxError(reason: "the trailer does not describe the file") }
        var offsets: [Int] = []
        offsets.reserveCapacity(Int(objectCount))
        for index in 0..<Int(objectCount) {
            let offset = readUnsigned(bytes, at: Int(tableOffset) + index * offsetSize, size: offsetSize)
            guard offset >= 8, offset < tableOffset else {
                throw PropertyListSyntaxError(reason: "object \(index) lies outside the file")
            }
            offsets.append(Int(offset))
        }
        let parser = BinaryPropertyListParser(bytes: bytes, offsets: offsets, referenceSize: referenceSize)
        return try parser.object(Int(topObject), depth: 1)
    }

    private init(bytes: [UInt8], offsets: [Int], referenceSize: Int) {
        self.bytes = bytes
        self.offsets = offsets
        self.referenceSize = referenceSize
        self.budget = VisitBudget(bytes.count + offsets.count)
    }

    private func object(_ reference: Int, depth: Int) throws(PropertyListSyntaxError) -> JSONValue {
        guard depth <= Self.maximumDepth else {
            throw PropertyListSyntaxError(reason: "objects nested deeper than \(Self.maximumDepth) levels")
        }
        guard budget.remaining > 0 else {
            throw PropertyListSyntaxError(
                reason: "objects shared so often that the file describes more values than it could hold")
        }
        budget.remaining -= 1
        guard reference < offsets.count else {
            throw PropertyListSyntaxError(reason: "a reference to object \(reference), which does not exist")
        }
        let start = offsets[reference]
        let marker = bytes[start]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw PropertyListSyntaxError(reason: "unknown marker 0x\(String(marker, radix: 16))")
            }
        case 0x1:
            return .number(try integerText(at: start + 1, widthExponent: low))
        case 0x2:
            guard low == 2 || low == 3 else { throw PropertyListSyntaxError(reason: "a real of unsupported width") }
            let raw = try payload(at: start + 1, count: 1 << low)
            let value =
                low == 2
                ? Double(Float(bitPattern: UInt32(Self.readUnsigned(raw, at: 0, size: 4))))
                : Double(bitPattern: Self.readUnsigned(raw, at: 0, size: 8))
            return Self.number(value)
        case 0x3:
            guard marker == 0x33 else {
                throw PropertyListSyntaxError(reason: "unknown marker 0x\(String(marker, radix: 16))")
            }
            return Self.number(
                Double(bitPattern: Self.readUnsigned(try payload(at: start + 1, count: 8), at: 0, size: 8)))
        case 0x4:
            let (count, body) = try length(low, at: start)
            return .string(Data(try payload(at: body, count: count)).base64EncodedString())
        case 0x5:
            let (count, body) = try length(low, at: start)
            let raw = try payload(at: body, count: count)
            guard raw.allSatisfy({ $0 < 0x80 }) else {
                throw PropertyListSyntaxError(reason: "an ASCII string with non-ASCII bytes")
            }
            return .string(String(decoding: raw, as: UTF8.self))
        case 0x6:
            let (count, body) = try length(low, at: start)
            let raw = try payload(at: body, count: count * 2)
            let units = (0..<count).map { UInt16(raw[2 * $0]) << 8 | UInt16(raw[2 * $0 + 1]) }
            guard let text = validatedString(units, as: UTF16.self) else {
                throw PropertyListSyntaxError(reason: "a string that is not valid UTF-16")
            }
            return .string(text)
        case 0x8:
            return .object([
                JSONMember(
                    name: "CF$UID",
                    value: .number(
                        String(Self.readUnsigned(try payload(at: start + 1, count: low + 1), at: 0, size: low + 1))))
            ])
        case 0xA, 0xC:
            let (count, body) = try length(low, at: start)
            return .array(
                try references(at: body, count: count).map { (reference) throws(PropertyListSyntaxError) in
                    try object(reference, depth: depth + 1)
                })
        case 0xD:
            let (count, body) = try length(low, at: start)
            let keys = try references(at: body, count: count)
            let values = try references(at: body + count * referenceSize, count: count)
            var members: [JSONMember] = []
            for (key, value) in zip(keys, values) {
                guard case .string(let name) = try object(key, depth: depth + 1) else {
                    throw PropertyListSyntaxError(reason: "a dictionary key that is not a string")
                }
                members.append(JSONMember(name: name, value: try object(value, depth: depth + 1)))
            }
            // Sorted like the JSON format's records, so both formats dump alike.
            return .object(members.sorted { $0.name.utf8.lexicographicallyPrecedes($1.name.utf8) })
        default:
            throw PropertyListSyntaxError(reason: "unknown marker 0x\(String(marker, radix: 16))")
        }
    }

    /// An object's element count: the marker's low nibble, or the integer object after it when
    /// the nibble is 0xF. Returns the count and where the object's body starts.
    private func length(_ low: Int, at start: Int) throws(PropertyListSyntaxError) -> (count: Int, body: Int) {
        guard low == 0x0F else { return (low, start + 1) }
        let marker = try payload(at: start + 1, count: 1)[0]
        let exponent = Int(marker & 0x0F)
        guard marker >> 4 == 0x1, exponent <= 3 else {
            throw PropertyListSyntaxError(reason: "a length that is not an integer")
        }
        let value = Self.readUnsigned(try payload(at: start + 2, count: 1 << exponent), at: 0, size: 1 << exponent)
        guard value <= UInt64(bytes.count) else {
            throw PropertyListSyntaxError(reason: "a length beyond the end of the file")
        }
        return (Int(value), start + 2 + (1 << exponent))
    }

    private func references(at start: Int, count: Int) throws(PropertyListSyntaxError) -> [Int] {
        let raw = try payload(at: start, count: count * referenceSize)
        return (0..<count).map { Int(Self.readUnsigned(raw, at: $0 * referenceSize, size: referenceSize)) }
    }

    /// Integers of 1, 2 and 4 bytes are unsigned, of 8 bytes signed; 16-byte ones hold unsigned
    /// values above `Int64.max` in their low half.
    private func integerText(at start: Int, widthExponent: Int) throws(PropertyListSyntaxError) -> String {
        guard widthExponent <= 4 else { throw PropertyListSyntaxError(reason: "an integer of unsupported width") }
        let width = 1 << widthExponent
        let raw = try payload(at: start, count: width)
        switch width {
        case 8: return String(Int64(bitPattern: Self.readUnsigned(raw, at: 0, size: 8)))
        case 16:
            guard Self.readUnsigned(raw, at: 0, size: 8) == 0 else {
                throw PropertyListSyntaxError(reason: "an integer wider than 64 bits")
            }
            return String(Self.readUnsigned(raw, at: 8, size: 8))
        default: return String(Self.readUnsigned(raw, at: 0, size: width))
        }
    }

    /// `count` bytes from `start`, checked against the end of the objects; a copy indexed from 0,
    /// so that callers cannot mistake slice indices for offsets.
    private func payload(at start: Int, count: Int) throws(PropertyListSyntaxError) -> [UInt8] {
        guard count >= 0, start >= 0, start <= bytes.count - 32, count <= bytes.count - 32 - start else {
            throw PropertyListSyntaxError(reason: "an object runs past the end of the data")
        }
        return Array(bytes[start..<(start + count)])
    }

    /// JSON has no NaN or infinities; they appear as the strings the JSON record format uses.
    private static func number(_ value: Double) -> JSONValue {
        if value.isNaN { return .string("NaN") }
        if value.isInfinite { return .string(value > 0 ? "+Infinity" : "-Infinity") }
        return .number(value.description)
    }

    private static func readUnsigned<Bytes: Collection>(_ bytes: Bytes, at offset: Int, size: Int) -> UInt64
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var value: UInt64 = 0
        let base = bytes.startIndex + offset
        for index in base..<(base + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
