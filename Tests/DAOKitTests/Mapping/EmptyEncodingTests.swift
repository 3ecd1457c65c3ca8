import Foundation
import Testing

@testable import DAOKit

/// A value whose `encode(to:)` writes nothing. `JSONEncoder` refuses it at the top level ("did not
/// encode any values": a JSON document needs a root) but writes `{}` for it anywhere else. The
/// mapper has no document, so it does what JSON does one level down, at every level: the value is
/// an empty keyed value, and mapping `x` and mapping `Box(x)` agree.
@Suite("Values that encode nothing")
struct EmptyEncodingTests {
    let mapper = EntityMapper()

    /// What `JSONDecoder` makes of `{}` as `T`, the form JSON gives an empty value below the top.
    func jsonReadingEmptyObject<T: Decodable>(as type: T.Type) -> Result<T, any Error> {
        Result { try JSONDecoder().decode(Boxed<T>.self, from: JSONEncoder().encode(Boxed(value: Nothing()))).value }
    }

    @Test func jsonRefusesATopLevelValueThatEncodesNothing() {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(Nothing()) }
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(LeavesSingleValueEmpty()) }
    }

    @Test func aTopLevelValueThatEncodesNothingMapsToWhatJSONReadsFromAnEmptyObject() throws {
        #expect(try mapper.map(Nothing(), to: Nothing.self) == (try jsonReadingEmptyObject(as: Nothing.self).get()))
        #expect(
            try mapper.map(Nothing(), to: [String: Int].self)
                == (try jsonReadingEmptyObject(as: [String: Int].self).get()))
        #expect(
            try mapper.map(Nothing(), to: [Int: Bool].self) == (try jsonReadingEmptyObject(as: [Int: Bool].self).get()))
        #expect(
            try mapper.map(Nothing(), to: AllOptionals.self)
                == (try jsonReadingEmptyObject(as: AllOptionals.self).get()))
    }

    @Test func aValueThatEncodesNothingMapsTheSameAtTheTopLevelAndNested() throws {
        let topLevel = try mapper.map(Nothing(), to: AllOptionals.self)
        let nested = try mapper.map(Boxed(value: Nothing()), to: Boxed<AllOptionals>.self).value
        let inArray = try mapper.map([Nothing()], to: [AllOptionals].self)
        #expect(topLevel == nested)
        #expect(inArray == [topLevel])
    }

    @Test func aSingleValueContainerLeftEmptyIsAnEmptyKeyedValueToo() throws {
        #expect(try mapper.map(LeavesSingleValueEmpty(), to: [String: Int].self) == [:])
        #expect(try mapper.map(Boxed(value: LeavesSingleValueEmpty()), to: Boxed<[String: Int]>.self).value == [:])
        let json = try JSONEncoder().encode(Boxed(value: LeavesSingleValueEmpty()))
        #expect(try JSONDecoder().decode(Boxed<[String: Int]>.self, from: json).value == [:])
    }

    @Test func containersAskedForButLeftEmptyKeepTheirKindAsInJSON() throws {
        #expect(try mapper.map(LeavesKeyedEmpty(), to: [String: Int].self) == [:])
        #expect(try mapper.map(LeavesUnkeyedEmpty(), to: [Int].self) == [])
        #expect(try JSONDecoder().decode([Int].self, from: JSONEncoder().encode(LeavesUnkeyedEmpty())) == [])
        let error = try #require(throws: MappingError.self) {
            try mapper.map(LeavesUnkeyedEmpty(), to: [String: Int].self)
        }
        guard let found = error.kind.found else {
            Issue.record("expected a type mismatch, got \(error.kind)")
            return
        }
        #expect(found == "unkeyed container")
    }

    @Test func aStrictMapperFindsNothingUnreadInAValueThatEncodesNothing() throws {
        #expect(try EntityMapper(strict: true).map(Nothing(), to: Nothing.self) == Nothing())
        #expect(try EntityMapper(strict: true).map(Nothing(), to: AllOptionals.self) == AllOptionals())
    }

    @Test func readingAnArrayFromAValueThatEncodesNothingIsATypeMismatchAsInJSON() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(Nothing(), to: [Int].self) }
        #expect(error.path == "<root>")
        guard let found = error.kind.found else {
            Issue.record("expected a type mismatch, got \(error.kind)")
            return
        }
        #expect(found == "keyed container")
        #expect(throws: DecodingError.self) { try jsonReadingEmptyObject(as: [Int].self).get() }
    }

    @Test(arguments: [
        EmptyTarget(Int.self), EmptyTarget(Int?.self), EmptyTarget(String.self), EmptyTarget(Bool.self),
        EmptyTarget(Date.self),
    ])
    func readingAPrimitiveFromAValueThatEncodesNothingIsATypeMismatchAsInJSON(_ target: EmptyTarget) throws {
        try target.check(mapper)
    }

    @Test func aTypeThatNeedsAKeyIsKeyNotFoundOnAValueThatEncodesNothing() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(Nothing(), to: OnlyID.self) }
        #expect(error.kind == .keyNotFound)
        #expect(error.path == "id")
    }
}

/// A primitive target type for the empty value, with the check that applies to it.
struct EmptyTarget: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let check: @Sendable (EntityMapper) throws -> Void

    init<T: Decodable & Sendable>(_ type: T.Type) {
        testDescription = String(describing: T.self)
        check = { mapper in
            let outcome = Result { try mapper.map(Nothing(), to: T.self) }
            guard case .failure(let failure) = outcome, let error = failure as? MappingError,
                let found = error.kind.found
            else {
                Issue.record("expected a type mismatch, got \(outcome)")
                return
            }
            #expect(found == "keyed container" && error.path == "<root>")
            let json = try JSONEncoder().encode(Boxed(value: Nothing()))
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(Boxed<T>.self, from: json) }
        }
    }
}

// MARK: - Fixtures

struct Boxed<Value> {
    let value: Value
}

extension Boxed: Encodable where Value: Encodable {}
extension Boxed: Decodable where Value: Decodable {}

/// Asks for a single-value container and writes nothing into it.
struct LeavesSingleValueEmpty: Encodable {
    func encode(to encoder: any Encoder) throws { _ = encoder.singleValueContainer() }
}

struct LeavesKeyedEmpty: Encodable {
    enum Keys: CodingKey { case unused }
    func encode(to encoder: any Encoder) throws { _ = encoder.container(keyedBy: Keys.self) }
}

struct LeavesUnkeyedEmpty: Encodable {
    func encode(to encoder: any Encoder) throws { _ = encoder.unkeyedContainer() }
}
