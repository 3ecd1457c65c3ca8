import Foundation

// Types of `FoundationCoderCorpus` that reach every primitive overload of the single-value and
// unkeyed containers. Generic code (`Array.init(from:)`, `encode<T>`) only ever calls the generic
// requirement, so each primitive type's overload is called here by a concrete call.

/// A primitive Codable type and the concrete single-value and unkeyed calls for it.
protocol CorpusScalar: Codable, Equatable, Sendable {
    static func write(_ value: Self, to container: inout any SingleValueEncodingContainer) throws
    static func read(from container: any SingleValueDecodingContainer) throws -> Self
    static func append(_ value: Self, to container: inout any UnkeyedEncodingContainer) throws
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> Self
}

extension Bool: CorpusScalar {
    static func write(_ value: Bool, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> Bool {
        try container.decode(Bool.self)
    }
    static func append(_ value: Bool, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> Bool {
        try container.decode(Bool.self)
    }
}

extension String: CorpusScalar {
    static func write(_ value: String, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> String {
        try container.decode(String.self)
    }
    static func append(_ value: String, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> String {
        try container.decode(String.self)
    }
}

extension Double: CorpusScalar {
    static func write(_ value: Double, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> Double {
        try container.decode(Double.self)
    }
    static func append(_ value: Double, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> Double {
        try container.decode(Double.self)
    }
}

extension Float: CorpusScalar {
    static func write(_ value: Float, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> Float {
        try container.decode(Float.self)
    }
    static func append(_ value: Float, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> Float {
        try container.decode(Float.self)
    }
}

extension Int: CorpusScalar {
    static func write(_ value: Int, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> Int { try container.decode(Int.self) }
    static func append(_ value: Int, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> Int {
        try container.decode(Int.self)
    }
}

extension Int8: CorpusScalar {
    static func write(_ value: Int8, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> Int8 {
        try container.decode(Int8.self)
    }
    static func append(_ value: Int8, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> Int8 {
        try container.decode(Int8.self)
    }
}

extension Int16: CorpusScalar {
    static func write(_ value: Int16, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> Int16 {
        try container.decode(Int16.self)
    }
    static func append(_ value: Int16, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> Int16 {
        try container.decode(Int16.self)
    }
}

extension Int32: CorpusScalar {
    static func write(_ value: Int32, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> Int32 {
        try container.decode(Int32.self)
    }
    static func append(_ value: Int32, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> Int32 {
        try container.decode(Int32.self)
    }
}

extension Int64: CorpusScalar {
    static func write(_ value: Int64, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> Int64 {
        try container.decode(Int64.self)
    }
    static func append(_ value: Int64, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> Int64 {
        try container.decode(Int64.self)
    }
}

extension UInt: CorpusScalar {
    static func write(_ value: UInt, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> UInt {
        try container.decode(UInt.self)
    }
    static func append(_ value: UInt, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> UInt {
        try container.decode(UInt.self)
    }
}

extension UInt8: CorpusScalar {
    static func write(_ value: UInt8, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> UInt8 {
        try container.decode(UInt8.self)
    }
    static func append(_ value: UInt8, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> UInt8 {
        try container.decode(UInt8.self)
    }
}

extension UInt16: CorpusScalar {
    static func write(_ value: UInt16, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> UInt16 {
        try container.decode(UInt16.self)
    }
    static func append(_ value: UInt16, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> UInt16 {
        try container.decode(UInt16.self)
    }
}

extension UInt32: CorpusScalar {
    static func write(_ value: UInt32, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> UInt32 {
        try container.decode(UInt32.self)
    }
    static func append(_ value: UInt32, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> UInt32 {
        try container.decode(UInt32.self)
    }
}

extension UInt64: CorpusScalar {
    static func write(_ value: UInt64, to container: inout any SingleValueEncodingContainer) throws {
        try container.encode(value)
    }
    static func read(from container: any SingleValueDecodingContainer) throws -> UInt64 {
        try container.decode(UInt64.self)
    }
    static func append(_ value: UInt64, to container: inout any UnkeyedEncodingContainer) throws {
        try container.encode(value)
    }
    static func next(from container: inout any UnkeyedDecodingContainer) throws -> UInt64 {
        try container.decode(UInt64.self)
    }
}

/// One primitive through a single-value container, by its concrete overloads.
struct Single<Value: CorpusScalar>: Codable, Equatable, Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
    init(from decoder: any Decoder) throws { value = try Value.read(from: decoder.singleValueContainer()) }
    func encode(to encoder: any Encoder) throws {
        var container: any SingleValueEncodingContainer = encoder.singleValueContainer()
        try Value.write(value, to: &container)
    }
}

/// Every primitive type as a single value.
struct SingleValueScalars: Codable, Equatable, Sendable {
    var bool = Single(true)
    var string = Single("single")
    var double = Single(-0.5)
    var float = Single(Float(0.25))
    var int = Single(Int.min)
    var int8 = Single(Int8.min)
    var int16 = Single(Int16.max)
    var int32 = Single(Int32.min)
    var int64 = Single(Int64.max)
    var uint = Single(UInt.max)
    var uint8 = Single(UInt8.max)
    var uint16 = Single(UInt16.max)
    var uint32 = Single(UInt32.max)
    var uint64 = Single(UInt64.max)
}

/// Every primitive type in one unkeyed container, by the concrete `encode`/`decode` overloads.
struct UnkeyedScalars: Codable, Equatable, Sendable {
    var bool = false
    var string = "unkeyed"
    var double = 1e300
    var float = Float(-3.5)
    var int = Int.max
    var int8 = Int8.max
    var int16 = Int16.min
    var int32 = Int32.max
    var int64 = Int64.min
    var uint = UInt(7)
    var uint8 = UInt8(0)
    var uint16 = UInt16(1)
    var uint32 = UInt32(2)
    var uint64 = UInt64(3)

    init() {}

    func encode(to encoder: any Encoder) throws {
        var container: any UnkeyedEncodingContainer = encoder.unkeyedContainer()
        try Bool.append(bool, to: &container)
        try String.append(string, to: &container)
        try Double.append(double, to: &container)
        try Float.append(float, to: &container)
        try Int.append(int, to: &container)
        try Int8.append(int8, to: &container)
        try Int16.append(int16, to: &container)
        try Int32.append(int32, to: &container)
        try Int64.append(int64, to: &container)
        try UInt.append(uint, to: &container)
        try UInt8.append(uint8, to: &container)
        try UInt16.append(uint16, to: &container)
        try UInt32.append(uint32, to: &container)
        try UInt64.append(uint64, to: &container)
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        bool = try Bool.next(from: &container)
        string = try String.next(from: &container)
        double = try Double.next(from: &container)
        float = try Float.next(from: &container)
        int = try Int.next(from: &container)
        int8 = try Int8.next(from: &container)
        int16 = try Int16.next(from: &container)
        int32 = try Int32.next(from: &container)
        int64 = try Int64.next(from: &container)
        uint = try UInt.next(from: &container)
        uint8 = try UInt8.next(from: &container)
        uint16 = try UInt16.next(from: &container)
        uint32 = try UInt32.next(from: &container)
        uint64 = try UInt64.next(from: &container)
    }
}
