import Foundation
import Testing

@testable import DAOKit

/// `map(_:to:)` decodes the metatype it is given, not its static type: `Employee.self as
/// Person.Type` gives an `Employee`, as `JSONDecoder().decode(_:from:)` does. Collections decode
/// their elements as their static element type, in both.
@Suite("Dynamic metatypes")
struct DynamicMetatypeTests {
    let mapper = EntityMapper()
    let employee = Employee(name: "Ann", badge: 7)

    func jsonDecoding<T: Decodable>(_ value: some Encodable, as type: T.Type) throws -> T {
        try JSONDecoder().decode(type, from: JSONEncoder().encode(value))
    }

    @Test func aSubclassMetatypeDecodesTheSubclassAsJSONDecoderDoes() throws {
        let target: Person.Type = Employee.self
        let mapped = try mapper.map(employee, to: target)
        let json = try jsonDecoding(employee, as: target)
        #expect(type(of: json) == Employee.self)
        #expect(type(of: mapped) == type(of: json))
        #expect((mapped as? Employee)?.badge == 7 && mapped.name == "Ann")
    }

    @Test func aMetatypePassedThroughAGenericFunctionKeepsItsDynamicType() throws {
        func load<T: Decodable>(_ type: T.Type, from value: some Encodable) throws -> T {
            try mapper.map(value, to: type)
        }
        let loaded = try load(Employee.self as Person.Type, from: employee)
        #expect((loaded as? Employee)?.badge == 7)
    }

    @Test func theStaticBaseClassStillDecodesTheBaseClass() throws {
        let mapped = try mapper.map(employee, to: Person.self)
        #expect(type(of: mapped) == Person.self)
        #expect(type(of: mapped) == type(of: try jsonDecoding(employee, as: Person.self)))
    }

    @Test func anArrayDecodesItsElementsAsItsStaticElementTypeAsJSONDecoderDoes() throws {
        let mapped = try mapper.map([employee, employee], to: [Person].self)
        let json = try jsonDecoding([employee, employee], as: [Person].self)
        #expect(mapped.map { ObjectIdentifier(type(of: $0)) } == json.map { ObjectIdentifier(type(of: $0)) })
        #expect(mapped.allSatisfy { type(of: $0) == Person.self })
        #expect(try mapper.map([employee], to: [Employee].self).map(\.badge) == [7])
    }

    @Test func aStrictMapperReadsTheSubclassFieldsOfASubclassMetatype() throws {
        let mapped = try EntityMapper(strict: true).map(employee, to: Employee.self as Person.Type)
        #expect((mapped as? Employee)?.badge == 7)
    }

    @Test func aSourceWithoutTheSubclassFieldsIsKeyNotFoundNamingTheSubclass() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(Person(name: "Bob"), to: Employee.self as Person.Type)
        }
        #expect(error.kind == .keyNotFound)
        #expect(error.path == "badge")
        #expect(error.targetType == "Employee")
        #expect(throws: DecodingError.self) { try jsonDecoding(Person(name: "Bob"), as: Employee.self as Person.Type) }
    }

    @Test func aSubclassFieldOfAnotherKindIsTypeMismatchNamingTheSubclass() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["name": "Cy", "badge": "seven"], to: Employee.self as Person.Type)
        }
        #expect(error.kind == .typeMismatch(expected: "Int", found: "String"))
        #expect(error.description.hasPrefix("Cannot map Dictionary<String, String> to Employee:"))
    }

    @Test func aStrictMapperGivenTheBaseClassStillReportsTheSubclassFieldsItDrops() throws {
        let error = try #require(throws: MappingError.self) {
            try EntityMapper(strict: true).map(employee, to: Person.self)
        }
        #expect(error.kind == .unmappedKey)
        #expect(error.path == "badge")
        #expect(error.targetType == "Person")
    }
}

// MARK: - Fixtures

/// A non-final class whose subclass adds a field in the same keyed container.
class Person: Codable, @unchecked Sendable {
    let name: String
    init(name: String) { self.name = name }
}

final class Employee: Person, @unchecked Sendable {
    let badge: Int
    enum CodingKeys: String, CodingKey { case badge }

    init(name: String, badge: Int) {
        self.badge = badge
        super.init(name: name)
    }

    required init(from decoder: any Decoder) throws {
        badge = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .badge)
        try super.init(from: decoder)
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(badge, forKey: .badge)
        try super.encode(to: encoder)
    }
}
