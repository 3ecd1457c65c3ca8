import Foundation
import Testing

@testable import DAOKit

/// Numbers convert only when the target type holds the value exactly: never a wrap, a truncation
/// or a rounding. `Bool` and `String` are never numbers.
@Suite("Number conversion")
struct NumberConversionTests {
    let mapper = EntityMapper()

    @Test func everyIntegerWidthRoundTripsItsExtremes() throws {
        #expect(try mapper.map([Int8.min, Int8.max], to: [Int8].self) == [Int8.min, Int8.max])
        #expect(try mapper.map([Int16.min, Int16.max], to: [Int16].self) == [Int16.min, Int16.max])
        #expect(try mapper.map([Int32.min, Int32.max], to: [Int32].self) == [Int32.min, Int32.max])
        #expect(try mapper.map([Int64.min, Int64.max], to: [Int64].self) == [Int64.min, Int64.max])
        #expect(try mapper.map([Int.min, Int.max], to: [Int].self) == [Int.min, Int.max])
        #expect(try mapper.map([UInt8.max], to: [UInt8].self) == [UInt8.max])
        #expect(try mapper.map([UInt16.max], to: [UInt16].self) == [UInt16.max])
        #expect(try mapper.map([UInt32.max], to: [UInt32].self) == [UInt32.max])
        #expect(try mapper.map([UInt64.max], to: [UInt64].self) == [UInt64.max])
        #expect(try mapper.map([UInt.max], to: [UInt].self) == [UInt.max])
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test func oneHundredTwentyEightBitIntegersRoundTripTheirExtremes() throws {
        let values = Wide128(
            signed: [.min, -1, 0, Int128(Int64.max) + 1, .max], unsigned: [0, UInt128(UInt64.max) + 1, .max])
        #expect(try mapper.map(values, to: Wide128.self) == values)
        #expect(try mapper.map(Int128.min, to: Int128.self) == .min)
        #expect(try mapper.map(UInt128.max, to: UInt128.self) == .max)
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test func a128BitIntegerNarrowsOnlyWhenItFits() throws {
        #expect(try mapper.map(Int128(-5), to: Int8.self) == -5)
        #expect(try mapper.map(UInt128(200), to: UInt8.self) == 200)
        #expect(try mapper.map(Int64.min, to: Int128.self) == Int128(Int64.min))
        #expect(try mapper.map(UInt128(1) << 100, to: Double.self) == 0x1p100)
        let tooBig = Int128(Int64.max) + 1
        let error = try #require(throws: MappingError.self) { try mapper.map(tooBig, to: Int64.self) }
        #expect(error.kind == .numberNotRepresentable(value: String(tooBig), target: "Int64"))
        let negative = try #require(throws: MappingError.self) { try mapper.map(Int128.min, to: UInt128.self) }
        #expect(negative.kind == .numberNotRepresentable(value: String(Int128.min), target: "UInt128"))
    }

    @Test func anIntegerNarrowsWhenTheValueFits() throws {
        #expect(try mapper.map(Int64(127), to: Int8.self) == 127)
        #expect(try mapper.map(UInt64(200), to: UInt8.self) == 200)
        #expect(try mapper.map(Int(-5), to: Int16.self) == -5)
        #expect(try mapper.map(UInt64(Int64.max), to: Int64.self) == Int64.max)
    }

    @Test(arguments: [
        (Int64(128), "Int8"), (Int64(-129), "Int8"), (Int64(-1), "UInt8"), (Int64(70_000), "Int16"),
        (Int64(-1), "UInt64"), (Int64.min, "UInt32"),
    ])
    func anIntegerThatDoesNotFitIsAnErrorNeverAWrap(value: Int64, target: String) throws {
        let error = try #require(throws: MappingError.self) {
            switch target {
            case "Int8": _ = try mapper.map(value, to: Int8.self)
            case "UInt8": _ = try mapper.map(value, to: UInt8.self)
            case "Int16": _ = try mapper.map(value, to: Int16.self)
            case "UInt32": _ = try mapper.map(value, to: UInt32.self)
            default: _ = try mapper.map(value, to: UInt64.self)
            }
        }
        #expect(error.kind == .numberNotRepresentable(value: String(value), target: target))
    }

    @Test func aLargeUnsignedValueDoesNotFitASignedType() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(UInt64.max, to: Int64.self) }
        #expect(error.kind == .numberNotRepresentable(value: String(UInt64.max), target: "Int64"))
    }

    @Test func anIntegralFloatingPointValueConvertsToAnInteger() throws {
        #expect(try mapper.map(42.0, to: Int.self) == 42)
        #expect(try mapper.map(Float(-3), to: Int8.self) == -3)
    }

    @Test(arguments: [0.5, -1.25, 1e20, .infinity, .nan])
    func aFractionalOrOutOfRangeFloatingPointValueIsNotAnInteger(value: Double) throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(value, to: Int.self) }
        #expect(error.kind == .numberNotRepresentable(value: "\(value)", target: "Int"))
    }

    @Test func anIntegerConvertsToFloatingPointWhenExactlyRepresentable() throws {
        #expect(try mapper.map(Int64(1) << 53, to: Double.self) == 9_007_199_254_740_992)
        #expect(try mapper.map(Int64(16_777_216), to: Float.self) == 16_777_216)
        #expect(try mapper.map(UInt8(7), to: Double.self) == 7)
    }

    @Test func anIntegerThatFloatingPointCannotHoldExactlyIsAnError() throws {
        let tooPrecise = (Int64(1) << 53) + 1
        let error = try #require(throws: MappingError.self) { try mapper.map(tooPrecise, to: Double.self) }
        #expect(error.kind == .numberNotRepresentable(value: String(tooPrecise), target: "Double"))
        #expect(throws: MappingError.self) { try mapper.map(Int64(16_777_217), to: Float.self) }
    }

    @Test func floatWidensToDoubleAndDoubleNarrowsOnlyWhenExact() throws {
        #expect(try mapper.map(Float(0.1), to: Double.self) == Double(Float(0.1)))
        #expect(try mapper.map(0.5, to: Float.self) == 0.5)
        #expect(try mapper.map(Double.infinity, to: Float.self) == .infinity)
        #expect(try mapper.map(Double.nan, to: Float.self).isNaN)
        let error = try #require(throws: MappingError.self) { try mapper.map(0.1, to: Float.self) }
        #expect(error.kind == .numberNotRepresentable(value: "0.1", target: "Float"))
    }

    @Test func floatingPointValuesKeepEveryBit() throws {
        let values: [Double] = [0.1, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .pi]
        let mapped = try mapper.map(values, to: [Double].self)
        #expect(mapped.map(\.bitPattern) == values.map(\.bitPattern))
    }

    @Test func decimalsConvertToBinaryNumbersOnlyWhenNothingIsLost() throws {
        #expect(try mapper.map(Decimal(5), to: Int.self) == 5)
        #expect(try mapper.map(Decimal(string: "-128")!, to: Int8.self) == -128)
        #expect(try mapper.map(Decimal(string: "0.5")!, to: Double.self) == 0.5)
        #expect(try mapper.map(Decimal(string: "0.1")!, to: Double.self) == 0.1)
        #expect(try mapper.map(Float(0.5), to: Decimal.self) == Decimal(string: "0.5"))
        let fraction = try #require(throws: MappingError.self) { try mapper.map(Decimal(string: "2.5")!, to: Int.self) }
        #expect(fraction.kind == .numberNotRepresentable(value: "2.5", target: "Int"))
        let tooBig = try #require(throws: MappingError.self) { try mapper.map(Decimal(string: "300")!, to: Int8.self) }
        #expect(tooBig.kind == .numberNotRepresentable(value: "300", target: "Int8"))
        let tooPrecise = "0.12345678901234567890123456789"
        let precise = try #require(throws: MappingError.self) {
            try mapper.map(Decimal(string: tooPrecise)!, to: Double.self)
        }
        #expect(precise.kind == .numberNotRepresentable(value: tooPrecise, target: "Double"))
    }

    @Test func aBoolIsNeverANumber() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(true, to: Int.self) }
        #expect(error.kind == .typeMismatch(expected: "Int", found: "Bool"))
        #expect(throws: MappingError.self) { try mapper.map(1, to: Bool.self) }
    }

    @Test func aStringIsNeverANumber() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map("42", to: Int.self) }
        #expect(error.kind == .typeMismatch(expected: "Int", found: "String"))
        #expect(throws: MappingError.self) { try mapper.map(42, to: String.self) }
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct Wide128: Codable, Equatable {
    let signed: [Int128]
    let unsigned: [UInt128]
}
