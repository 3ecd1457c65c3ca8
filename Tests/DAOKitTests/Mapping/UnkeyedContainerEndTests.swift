import Foundation
import Testing

@testable import DAOKit

/// An unkeyed decoding container at its end, and after failed reads, answers as `JSONDecoder`'s
/// does: `decodeIfPresent` gives nil (for every primitive overload and the generic one), a failed
/// read leaves `count`, `isAtEnd` and `currentIndex` as they were, and a nested container asked of
/// an exhausted container is `valueNotFound` at the next index.
@Suite("Unkeyed container at its end")
struct UnkeyedContainerEndTests {
    let mapper = EntityMapper()

    /// What `JSONDecoder` makes of the same source, as the reference.
    func jsonReading<T: Decodable>(_ value: some Encodable, as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(value))
    }

    @Test func decodeIfPresentOfEveryPrimitiveTypeAtTheEndIsNil() throws {
        let read = try mapper.map([Int](), to: UnkeyedOptionals.self)
        #expect(read == UnkeyedOptionals())
        #expect(read == (try jsonReading([Int](), as: UnkeyedOptionals.self)))
    }

    @Test func optionalsWrittenByOmissionRoundTripWhenAllArePresent() throws {
        let full = UnkeyedOptionals.full
        #expect(try mapper.map(full, to: UnkeyedOptionals.self) == full)
        #expect(try jsonReading(full, as: UnkeyedOptionals.self) == full)
    }

    @Test func optionalsWrittenByOmissionRoundTripWhenOnlyALeadingRunIsPresent() throws {
        var partial = UnkeyedOptionals()
        partial.bool = true
        partial.string = "s"
        partial.double = 0.5
        #expect(try mapper.map(partial, to: UnkeyedOptionals.self) == partial)
        #expect(try jsonReading(partial, as: UnkeyedOptionals.self) == partial)
    }

    @Test func decodeIfPresentOfAGenericTypeAtTheEndIsNil() throws {
        let read = try mapper.map([Int](), to: UnkeyedGenericOptionals.self)
        #expect(read == UnkeyedGenericOptionals())
        #expect(read == (try jsonReading([Int](), as: UnkeyedGenericOptionals.self)))
    }

    @Test func genericOptionalsRoundTripWhenPresent() throws {
        let full = UnkeyedGenericOptionals.full
        #expect(try mapper.map(full, to: UnkeyedGenericOptionals.self) == full)
    }

    @Test func decodeIfPresentOfAnExplicitNullIsNilAndMovesOn() throws {
        let read = try mapper.map([nil, 3] as [Int?], to: NullThenValue.self)
        #expect(read == NullThenValue(first: nil, second: 3, indexAfter: 2))
        #expect(read == (try jsonReading([nil, 3] as [Int?], as: NullThenValue.self)))
    }

    @Test func everyReadAtTheEndAndAfterAFailureMatchesJSONDecoderStepByStep() throws {
        let source: [Int?] = [7, nil]
        let mapped = try mapper.map(source, to: UnkeyedEndProbe.self)
        let json = try jsonReading(source, as: UnkeyedEndProbe.self)
        #expect(mapped.steps.count == json.steps.count)
        for (mine, theirs) in zip(mapped.steps, json.steps) {
            #expect(mine == theirs)
        }
    }

    @Test func aFailedReadLeavesCountIsAtEndAndCurrentIndexUnchanged() throws {
        let probe = try mapper.map([7, nil] as [Int?], to: UnkeyedEndProbe.self)
        let failures = probe.steps.filter { $0.outcome.hasPrefix("typeMismatch") }
        #expect(failures.count == 5)
        for failure in failures {
            #expect(failure.count == 2 && failure.isAtEnd == false && failure.currentIndex == 0)
        }
    }

    @Test func decodeIfPresentAtTheEndMovesCurrentIndexOnAsJSONDecoderDoes() throws {
        let probe = try mapper.map([7, nil] as [Int?], to: UnkeyedEndProbe.self)
        let atEnd = probe.steps.filter { $0.call.hasPrefix("decodeIfPresent") && $0.call.hasSuffix("at end") }
        #expect(atEnd.count == UnkeyedEndProbe.optionalReadsAtEnd)
        #expect(atEnd.allSatisfy { $0.outcome == "nil" && $0.isAtEnd && $0.count == 2 })
        #expect(atEnd.map(\.currentIndex) == Array(3...(2 + UnkeyedEndProbe.optionalReadsAtEnd)))
    }

    @Test func nestedContainersOfAnExhaustedContainerAreValueNotFoundAtTheNextIndex() throws {
        let probe = try mapper.map([7, nil] as [Int?], to: UnkeyedEndProbe.self)
        let nested = probe.steps.filter { $0.call.hasPrefix("nested") && $0.call.hasSuffix("at end") }
        #expect(nested.count == 2)
        let nextIndex = 2 + UnkeyedEndProbe.optionalReadsAtEnd
        for step in nested {
            #expect(step.outcome.hasPrefix("valueNotFound"))
            #expect(step.outcome.hasSuffix("at [\(nextIndex)]"))
            #expect(step.currentIndex == nextIndex && step.isAtEnd)
        }
    }

    @available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
    @Test func decodeIfPresentOfA128BitIntegerIsNilAtTheEndAndExactWhenPresent() throws {
        let atEnd = try mapper.map([Int](), to: UnkeyedWideOptionals.self)
        #expect(atEnd.signed == nil && atEnd.unsigned == nil && atEnd.indexAfter == 2)
        let present = try mapper.map([Int128.min, 5], to: UnkeyedWideOptionals.self)
        #expect(present.signed == .min && present.unsigned == 5 && present.indexAfter == 2)
    }

    @Test func aRequiredReadAtTheEndStillFailsAsValueNotFoundWithItsPath() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map([1], to: TwoRequiredInts.self)
        }
        #expect(error.kind == .valueNotFound)
        #expect(error.path == "[1]")
    }

    @Test func aStrictMapperAcceptsOptionalReadsPastTheEnd() throws {
        #expect(try EntityMapper(strict: true).map(UnkeyedOptionals.full, to: UnkeyedOptionals.self) == .full)
        #expect(
            try EntityMapper(strict: true).map([Int](), to: UnkeyedGenericOptionals.self) == UnkeyedGenericOptionals())
    }
}

// MARK: - Fixtures

/// Writes its fields into one unkeyed container, omitting the nils (so a value with only nils
/// writes `[]`), and reads each back with the primitive `decodeIfPresent` overloads.
struct UnkeyedOptionals: Codable, Equatable, Sendable {
    var bool: Bool?
    var string: String?
    var double: Double?
    var float: Float?
    var int: Int?
    var int8: Int8?
    var int16: Int16?
    var int32: Int32?
    var int64: Int64?
    var uint: UInt?
    var uint8: UInt8?
    var uint16: UInt16?
    var uint32: UInt32?
    var uint64: UInt64?

    static let full = UnkeyedOptionals(
        bool: false, string: "text", double: -2.25, float: 1.5, int: .min, int8: .max, int16: .min, int32: .max,
        int64: .min, uint: .max, uint8: .max, uint16: .max, uint32: .max, uint64: .max)

    init(
        bool: Bool? = nil, string: String? = nil, double: Double? = nil, float: Float? = nil, int: Int? = nil,
        int8: Int8? = nil, int16: Int16? = nil, int32: Int32? = nil, int64: Int64? = nil, uint: UInt? = nil,
        uint8: UInt8? = nil, uint16: UInt16? = nil, uint32: UInt32? = nil, uint64: UInt64? = nil
    ) {
        (self.bool, self.string, self.double, self.float) = (bool, string, double, float)
        (self.int, self.int8, self.int16, self.int32, self.int64) = (int, int8, int16, int32, int64)
        (self.uint, self.uint8, self.uint16, self.uint32, self.uint64) = (uint, uint8, uint16, uint32, uint64)
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        bool = try container.decodeIfPresent(Bool.self)
        string = try container.decodeIfPresent(String.self)
        double = try container.decodeIfPresent(Double.self)
        float = try container.decodeIfPresent(Float.self)
        int = try container.decodeIfPresent(Int.self)
        int8 = try container.decodeIfPresent(Int8.self)
        int16 = try container.decodeIfPresent(Int16.self)
        int32 = try container.decodeIfPresent(Int32.self)
        int64 = try container.decodeIfPresent(Int64.self)
        uint = try container.decodeIfPresent(UInt.self)
        uint8 = try container.decodeIfPresent(UInt8.self)
        uint16 = try container.decodeIfPresent(UInt16.self)
        uint32 = try container.decodeIfPresent(UInt32.self)
        uint64 = try container.decodeIfPresent(UInt64.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if let bool { try container.encode(bool) }
        if let string { try container.encode(string) }
        if let double { try container.encode(double) }
        if let float { try container.encode(float) }
        if let int { try container.encode(int) }
        if let int8 { try container.encode(int8) }
        if let int16 { try container.encode(int16) }
        if let int32 { try container.encode(int32) }
        if let int64 { try container.encode(int64) }
        if let uint { try container.encode(uint) }
        if let uint8 { try container.encode(uint8) }
        if let uint16 { try container.encode(uint16) }
        if let uint32 { try container.encode(uint32) }
        if let uint64 { try container.encode(uint64) }
    }
}

/// The same for types that go through the generic `decodeIfPresent`: Foundation values,
/// collections, a nested struct and an enum.
struct UnkeyedGenericOptionals: Codable, Equatable, Sendable {
    var date: Date?
    var url: URL?
    var list: [Int]?
    var nested: Reordered?
    var kind: MessageKind?

    static let full = UnkeyedGenericOptionals(
        date: Date(timeIntervalSinceReferenceDate: 12.5), url: URL(string: "https://swift.org"), list: [1, 2],
        nested: Reordered(a: 1, b: "b", c: 0.5, d: [3]), kind: .voice)

    init(date: Date? = nil, url: URL? = nil, list: [Int]? = nil, nested: Reordered? = nil, kind: MessageKind? = nil) {
        (self.date, self.url, self.list, self.nested, self.kind) = (date, url, list, nested, kind)
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        date = try container.decodeIfPresent(Date.self)
        url = try container.decodeIfPresent(URL.self)
        list = try container.decodeIfPresent([Int].self)
        nested = try container.decodeIfPresent(Reordered.self)
        kind = try container.decodeIfPresent(MessageKind.self)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        if let date { try container.encode(date) }
        if let url { try container.encode(url) }
        if let list { try container.encode(list) }
        if let nested { try container.encode(nested) }
        if let kind { try container.encode(kind) }
    }
}

struct NullThenValue: Decodable, Equatable, Sendable {
    let first: Int?
    let second: Int?
    let indexAfter: Int

    init(first: Int?, second: Int?, indexAfter: Int) {
        (self.first, self.second, self.indexAfter) = (first, second, indexAfter)
    }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        first = try container.decodeIfPresent(Int.self)
        second = try container.decodeIfPresent(Int.self)
        indexAfter = container.currentIndex
    }
}

@available(macOS 15.0, iOS 18.0, watchOS 11.0, tvOS 18.0, visionOS 2.0, *)
struct UnkeyedWideOptionals: Decodable {
    let signed: Int128?
    let unsigned: UInt128?
    let indexAfter: Int

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        signed = try container.decodeIfPresent(Int128.self)
        unsigned = try container.decodeIfPresent(UInt128.self)
        indexAfter = container.currentIndex
    }
}

struct TwoRequiredInts: Decodable {
    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        _ = try container.decode(Int.self)
        _ = try container.decode(Int.self)
    }
}

/// Reads `[7, null]` through every unkeyed-container call that can fail or run past the end,
/// recording each call's outcome and the container's state after it, so that two decoders can be
/// compared step by step.
struct UnkeyedEndProbe: Decodable, Equatable, Sendable {
    struct Step: Equatable, Sendable, CustomStringConvertible {
        let call: String
        let outcome: String
        let count: Int?
        let isAtEnd: Bool
        let currentIndex: Int
        var description: String {
            "\(call) → \(outcome) [count \(count ?? -1), isAtEnd \(isAtEnd), currentIndex \(currentIndex)]"
        }
    }

    /// How many `decodeIfPresent` calls the probe makes once the container is at its end.
    static let optionalReadsAtEnd = 19

    var steps: [Step] = []

    enum Key: String, CodingKey { case any }

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        func record(_ call: String, _ body: (inout any UnkeyedDecodingContainer) throws -> String) {
            let outcome: String
            do { outcome = try body(&container) } catch { outcome = Self.describe(error) }
            steps.append(
                Step(
                    call: call, outcome: outcome, count: container.count,
                    isAtEnd: container.isAtEnd, currentIndex: container.currentIndex))
        }
        func optional(_ value: (some Any)?) -> String { value.map { "\($0)" } ?? "nil" }

        record("start") { _ in "" }
        record("decode(String) on a number") { try $0.decode(String.self) }
        record("nestedUnkeyedContainer on a number") {
            _ = try $0.nestedUnkeyedContainer()
            return "container"
        }
        record("nestedContainer on a number") {
            _ = try $0.nestedContainer(keyedBy: Key.self)
            return "container"
        }
        record("decodeIfPresent(String) on a number") { optional(try $0.decodeIfPresent(String.self)) }
        record("decodeIfPresent([Int]) on a number") { optional(try $0.decodeIfPresent([Int].self)) }
        record("decodeNil on a number") { "\(try $0.decodeNil())" }
        record("decode(Int)") { "\(try $0.decode(Int.self))" }
        record("decodeNil on a null") { "\(try $0.decodeNil())" }
        record("decodeIfPresent(Bool) at end") { optional(try $0.decodeIfPresent(Bool.self)) }
        record("decodeIfPresent(String) at end") { optional(try $0.decodeIfPresent(String.self)) }
        record("decodeIfPresent(Double) at end") { optional(try $0.decodeIfPresent(Double.self)) }
        record("decodeIfPresent(Float) at end") { optional(try $0.decodeIfPresent(Float.self)) }
        record("decodeIfPresent(Int) at end") { optional(try $0.decodeIfPresent(Int.self)) }
        record("decodeIfPresent(Int8) at end") { optional(try $0.decodeIfPresent(Int8.self)) }
        record("decodeIfPresent(Int16) at end") { optional(try $0.decodeIfPresent(Int16.self)) }
        record("decodeIfPresent(Int32) at end") { optional(try $0.decodeIfPresent(Int32.self)) }
        record("decodeIfPresent(Int64) at end") { optional(try $0.decodeIfPresent(Int64.self)) }
        record("decodeIfPresent(UInt) at end") { optional(try $0.decodeIfPresent(UInt.self)) }
        record("decodeIfPresent(UInt8) at end") { optional(try $0.decodeIfPresent(UInt8.self)) }
        record("decodeIfPresent(UInt16) at end") { optional(try $0.decodeIfPresent(UInt16.self)) }
        record("decodeIfPresent(UInt32) at end") { optional(try $0.decodeIfPresent(UInt32.self)) }
        record("decodeIfPresent(UInt64) at end") { optional(try $0.decodeIfPresent(UInt64.self)) }
        record("decodeIfPresent(Date) at end") { optional(try $0.decodeIfPresent(Date.self)) }
        record("decodeIfPresent([Int]) at end") { optional(try $0.decodeIfPresent([Int].self)) }
        record("decodeIfPresent([String: Int]) at end") { optional(try $0.decodeIfPresent([String: Int].self)) }
        record("decodeIfPresent(Reordered) at end") { optional(try $0.decodeIfPresent(Reordered.self)) }
        record("decodeIfPresent(Int?) at end") { optional(try $0.decodeIfPresent(Int?.self)) }
        record("decodeNil at end") { "\(try $0.decodeNil())" }
        record("nestedUnkeyedContainer at end") {
            _ = try $0.nestedUnkeyedContainer()
            return "container"
        }
        record("nestedContainer at end") {
            _ = try $0.nestedContainer(keyedBy: Key.self)
            return "container"
        }
        record("decode(Int) at end") { "\(try $0.decode(Int.self))" }
        record("decode([Int]) at end") { "\(try $0.decode([Int].self))" }
    }

    /// The parts of a `DecodingError` both decoders must agree on: its kind, and its path. (The
    /// type a mismatch names differs by design: JSON names `Array<Any>`, the mapper the container.)
    static func describe(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            "at [" + context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
                + "]"
        }
        switch error {
        case DecodingError.typeMismatch(_, let context): return "typeMismatch " + path(context)
        case DecodingError.valueNotFound(let type, let context): return "valueNotFound(\(type)) " + path(context)
        case DecodingError.keyNotFound(let key, let context): return "keyNotFound(\(key.stringValue)) " + path(context)
        case DecodingError.dataCorrupted(let context): return "dataCorrupted " + path(context)
        default: return "\(error)"
        }
    }
}
