// Written as code outside the package uses it (no `@testable`): a program switches over codes with
// a `default:`, matches them in `catch`, and reads a kind's details as values.
import DAOKit
import Testing

@Suite("MappingError codes and kinds")
struct MappingErrorCodeTests {
    struct Cause: Error, CustomStringConvertible {
        var description: String { "the cause" }
    }

    struct Key: CodingKey {
        let stringValue: String
        let intValue: Int? = nil
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static func error(_ kind: MappingError.Kind, underlyingError: (any Error)? = Cause()) -> MappingError {
        MappingError(
            sourceType: "Message", targetType: "MessageEntity", kind: kind,
            codingPath: [Key(stringValue: "text")], underlyingError: underlyingError)
    }

    @Test(arguments: [
        (MappingError.Kind.keyNotFound, "Cannot map Message to MessageEntity: key not found at text"),
        (.valueNotFound, "Cannot map Message to MessageEntity: value not found at text"),
        (
            .typeMismatch(expected: "Int", found: "String"),
            "Cannot map Message to MessageEntity: type mismatch (expected Int, found String) at text"
        ),
        (
            .numberNotRepresentable(value: "300", target: "Int8"),
            "Cannot map Message to MessageEntity: number 300 is not representable as Int8 at text"
        ),
        (.dataCorrupted("not hex"), "Cannot map Message to MessageEntity: data corrupted (not hex) at text"),
        (.unmappedKey, "Cannot map Message to MessageEntity: the target never reads this key at text"),
        (.userError, "Cannot map Message to MessageEntity: error thrown by the type itself (the cause) at text"),
    ])
    func theDescriptionOfEveryKindIsUnchanged(kind: MappingError.Kind, expected: String) {
        #expect(Self.error(kind).description == expected)
    }

    @Test func aUserErrorWithoutItsErrorSaysUnknown() {
        #expect(
            Self.error(.userError, underlyingError: nil).description
                == "Cannot map Message to MessageEntity: error thrown by the type itself (unknown) at text")
    }

    @Test func everyKindCarriesItsOwnCode() {
        let kinds: [(MappingError.Kind, MappingError.Code)] = [
            (.keyNotFound, .keyNotFound), (.valueNotFound, .valueNotFound),
            (.typeMismatch(expected: "Int", found: "String"), .typeMismatch),
            (.numberNotRepresentable(value: "300", target: "UInt8"), .numberNotRepresentable),
            (.dataCorrupted("bad"), .dataCorrupted), (.unmappedKey, .unmappedKey), (.userError, .userError),
        ]
        for (kind, code) in kinds {
            #expect(kind.code == code)
            #expect(Self.error(kind).code == code)
        }
        #expect(Set(kinds.map(\.1.name)).count == kinds.count, "every code has its own name")
        #expect(Set(kinds.map(\.1)).count == kinds.count, "codes with different names are different")
    }

    @Test func aTypeMismatchCarriesTheExpectedAndFoundTypesAndNothingElse() {
        let kind = MappingError.Kind.typeMismatch(expected: "Int", found: "unknown case \"urgent\"")
        #expect(kind.expectedType == "Int")
        #expect(kind.found == "unknown case \"urgent\"")
        #expect(kind.number == nil && kind.numericType == nil && kind.message == nil)
    }

    @Test func aNumberNotRepresentableCarriesTheNumberAndItsTargetAndNothingElse() {
        let kind = MappingError.Kind.numberNotRepresentable(value: "300", target: "Int8")
        #expect(kind.number == "300")
        #expect(kind.numericType == "Int8")
        #expect(kind.expectedType == nil && kind.found == nil && kind.message == nil)
    }

    @Test func dataCorruptedCarriesItsMessageAndNothingElse() {
        let kind = MappingError.Kind.dataCorrupted("not hex")
        #expect(kind.message == "not hex")
        #expect(kind.expectedType == nil && kind.found == nil && kind.number == nil && kind.numericType == nil)
    }

    @Test(arguments: [MappingError.Kind.keyNotFound, .valueNotFound, .unmappedKey, .userError])
    func aKindWithoutDetailsHasNone(kind: MappingError.Kind) {
        #expect(kind.expectedType == nil && kind.found == nil)
        #expect(kind.number == nil && kind.numericType == nil && kind.message == nil)
    }

    @Test func kindsCompareByCodeAndDetails() {
        #expect(
            MappingError.Kind.typeMismatch(expected: "Int", found: "String")
                == .typeMismatch(expected: "Int", found: "String"))
        #expect(
            MappingError.Kind.typeMismatch(expected: "Int", found: "String")
                != .typeMismatch(expected: "Int", found: "Bool"))
        #expect(
            MappingError.Kind.numberNotRepresentable(value: "1", target: "A")
                != .numberNotRepresentable(value: "1", target: "B"))
        #expect(MappingError.Kind.dataCorrupted("a") != .dataCorrupted("b"))
        #expect(MappingError.Kind.keyNotFound != .valueNotFound)
        #expect(MappingError.Kind.userError == .userError)
    }

    @Test func aKindDescribesItselfAsItIsWritten() {
        #expect("\(MappingError.Kind.keyNotFound)" == "keyNotFound")
        #expect(
            "\(MappingError.Kind.typeMismatch(expected: "Int", found: "String"))"
                == #"typeMismatch(expected: "Int", found: "String")"#)
        #expect(
            "\(MappingError.Kind.numberNotRepresentable(value: "300", target: "Int8"))"
                == #"numberNotRepresentable(value: "300", target: "Int8")"#)
        #expect("\(MappingError.Kind.dataCorrupted("say \"hi\""))" == #"dataCorrupted("say \"hi\"")"#)
    }

    @Test func aSwitchOverCodesNeedsADefaultAndMatchesByCode() {
        func name(_ error: MappingError) -> String {
            switch error.code {
            case .typeMismatch: return "mismatch"
            case .keyNotFound: return "missing"
            default: return "other"
            }
        }
        #expect(name(Self.error(.typeMismatch(expected: "Int", found: "String"))) == "mismatch")
        #expect(name(Self.error(.keyNotFound)) == "missing")
        #expect(name(Self.error(.unmappedKey)) == "other")
    }

    @Test func aCodeMatchesAKindWhateverItsDetails() {
        let kind = Self.error(.dataCorrupted("not hex")).kind
        var matched = false
        if case MappingError.Code.dataCorrupted = kind { matched = true }
        #expect(matched)
        switch kind {
        case MappingError.Code.typeMismatch: Issue.record("matched the wrong code")
        case MappingError.Code.dataCorrupted: break
        default: Issue.record("matched no code")
        }
        if case MappingError.Code.typeMismatch = kind { Issue.record("a dataCorrupted kind matched typeMismatch") }
    }

    @Test func aCatchClauseMatchesACodeAndNothingElse() {
        func attempt(_ error: any Error) -> String {
            do {
                throw error
            } catch MappingError.Code.typeMismatch {
                return "mismatch"
            } catch MappingError.Code.keyNotFound {
                return "missing"
            } catch {
                return "other"
            }
        }
        #expect(attempt(Self.error(.typeMismatch(expected: "Int", found: "String"))) == "mismatch")
        #expect(attempt(Self.error(.keyNotFound)) == "missing")
        #expect(attempt(Self.error(.valueNotFound)) == "other")
        #expect(attempt(Cause()) == "other")
        #expect(attempt(StorageError(.missingID)) == "other", "a StorageError is not a MappingError code")
    }

    @Test func theMapperReportsDetailsAsValues() throws {
        struct Wide: Encodable { let level: Int }
        struct Narrow: Decodable { let level: Int8 }
        let error = try #require(throws: MappingError.self) {
            try EntityMapper().map(Wide(level: 300), to: Narrow.self)
        }
        #expect(error.code == .numberNotRepresentable)
        #expect(error.kind.number == "300" && error.kind.numericType == "Int8")

        let mismatch = try #require(throws: MappingError.self) {
            try EntityMapper().map(["level": "x"], to: Narrow.self)
        }
        #expect(mismatch.code == .typeMismatch)
        #expect(mismatch.kind.expectedType == "Int8" && mismatch.kind.found == "String")
    }
}
