import Foundation
import Testing

@testable import DAOKit

/// An error thrown by a type's own `encode(to:)` or `init(from:)` is reported at the path where it
/// was thrown — whatever its size (a payload-free enum case has no storage at all), and never at the
/// path of another error that user code swallowed on the way.
@Suite("User error paths")
struct UserErrorPathTests {
    let mapper = EntityMapper()

    @Test func aPayloadFreeEnumErrorFromANestedDecodeIsReportedAtItsField() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(["email": "x"], to: User.self) }
        #expect(error.kind == .userError)
        #expect(error.path == "email")
        #expect(error.underlyingError is Invalid)
    }

    @Test func aPayloadFreeEnumErrorFromANestedEncodeIsReportedAtItsField() throws {
        let error = try #require(throws: MappingError.self) { try mapper.map(RefusingHolder(), to: [String: Int].self) }
        #expect(error.kind == .userError)
        #expect(error.path == "value")
        #expect(error.underlyingError is Invalid)
    }

    @Test func aPayloadFreeEnumErrorFromAnArrayElementIsReportedAtItsIndex() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["users": [["email": "ok"], ["email": "x"]]], to: UserList.self)
        }
        #expect(error.path == "users[1].email")
    }

    @Test func anErrorSwallowedDeepDoesNotLendItsPathToADifferentOneThrownAtTheRoot() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["inner": ["v": 1]], to: SwallowsThenThrowsAnother.self)
        }
        #expect(error.codingPath.isEmpty)
        #expect((error.underlyingError as? Rejected)?.field == "root")
    }

    @Test func anEqualErrorThrownAfterMoreDecodingIsReportedWhereItWasThrown() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["inner": ["v": 1], "later": ["v": 2]], to: SwallowsDecodesMoreThenThrowsEqual.self)
        }
        #expect(error.codingPath.isEmpty)
        #expect(error.underlyingError is Invalid)
    }

    @Test func aRethrownErrorKeepsTheDeepestPath() throws {
        let error = try #require(throws: MappingError.self) {
            try mapper.map(["wrapper": ["email": "x"]], to: Rethrows.self)
        }
        #expect(error.path == "wrapper.email")
    }
}

enum Invalid: Error { case empty }

struct Rejected: Error {
    let code: Int
    let field: String
}

struct Email: Codable {
    init() {}
    init(from decoder: any Decoder) throws { throw Invalid.empty }
    func encode(to encoder: any Encoder) throws { throw Invalid.empty }
}

struct User: Decodable {
    let email: Email
}

struct UserList: Decodable {
    let users: [OptionalEmailUser]
}

/// Accepts "ok" and rejects anything else with a payload-free error.
struct OptionalEmailUser: Decodable {
    enum Keys: String, CodingKey { case email }
    init(from decoder: any Decoder) throws {
        let value = try decoder.container(keyedBy: Keys.self).decode(CheckedEmail.self, forKey: .email)
        _ = value
    }
}

struct CheckedEmail: Decodable {
    init(from decoder: any Decoder) throws {
        if try decoder.singleValueContainer().decode(String.self) != "ok" { throw Invalid.empty }
    }
}

struct RefusingHolder: Encodable {
    enum Keys: String, CodingKey { case value }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(Email(), forKey: .value)
    }
}

/// Rejects its field with an error that names it.
struct RejectsField: Decodable {
    init(from decoder: any Decoder) throws { throw Rejected(code: 1, field: "inner") }
}

/// Swallows the nested `Rejected(field: "inner")` with `try?`, then throws a different one itself.
struct SwallowsThenThrowsAnother: Decodable {
    enum Keys: String, CodingKey { case inner }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        _ = try? container.decode(RejectsField.self, forKey: .inner)
        throw Rejected(code: 1, field: "root")
    }
}

/// Swallows a nested `Invalid.empty`, decodes another nested value, then throws an equal error itself.
struct SwallowsDecodesMoreThenThrowsEqual: Decodable {
    enum Keys: String, CodingKey { case inner, later }
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        _ = try? container.decode(Email.self, forKey: .inner)
        _ = try container.decode(Inner.self, forKey: .later)
        throw Invalid.empty
    }
}

/// Catches the nested error and throws it again unchanged.
struct Rethrows: Decodable {
    enum Keys: String, CodingKey { case wrapper }
    init(from decoder: any Decoder) throws {
        do {
            _ = try decoder.container(keyedBy: Keys.self).decode(User.self, forKey: .wrapper)
        } catch {
            throw error
        }
    }
}
