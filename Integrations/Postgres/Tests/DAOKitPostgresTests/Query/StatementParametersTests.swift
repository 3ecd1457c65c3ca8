import DAOKit
import DAOKitSQL
import Testing

@testable import DAOKitPostgres

/// The parameters a translation binds are exactly those its SQL uses, numbered in order and typed
/// in the SQL: what a named prepared statement, which counts and types its parameters from the
/// SQL alone, needs.
@Suite("Postgres statement parameters")
struct StatementParametersTests {
    private let kinds: [String: Set<JSONRecord.FieldKind>] = [
        "a": [.asciiString], "b": [.asciiString], "n": [.integer], "flag": [.bool],
    ]

    /// The translation's condition and how many parameters it bound.
    private func translate(_ filter: StorageFilter) -> (condition: String?, count: Int) {
        let translation = PostgresQueryTranslation(
            StorageQuery(filter: filter), dialect: PostgresDialect(kinds: kinds),
            parameters: StatementParameters())
        return (translation.condition, translation.parameters.count)
    }

    /// The placeholders `$1`, `$2`, … the SQL holds, in the order they appear.
    private func placeholders(in sql: String) -> [Int] {
        var numbers: [Int] = []
        var rest = Substring(sql)
        while let dollar = rest.firstIndex(of: "$") {
            rest = rest[rest.index(after: dollar)...]
            let digits = rest.prefix { $0.isNumber }
            if let number = Int(digits) { numbers.append(number) }
            rest = rest.dropFirst(digits.count)
        }
        return numbers
    }

    @Test func everyPlaceholderIsNumberedInOrderAndTypedInTheSQL() throws {
        let (condition, count) = translate(
            .and([
                .compare("a", .equal, .string("x")), .compare("n", .greater, .int(3)),
                .isIn("b", [.string("y"), .string("z")]),
            ]))
        let sql = try #require(condition)
        #expect(count == 4)
        // A string's constant is named twice (its prefix narrows, the whole value decides).
        var firstAppearances: [Int] = []
        for number in placeholders(in: sql) where !firstAppearances.contains(number) { firstAppearances.append(number) }
        #expect(firstAppearances == [1, 2, 3, 4], "\(sql)")
        #expect(
            sql.contains("$1::text") && sql.contains("$2::text::numeric") && sql.contains("$3::text")
                && sql.contains("$4::text"), "\(sql)")
    }

    @Test func aMembershipOfManyConstantsBindsOneListPerKind() throws {
        let (condition, count) = translate(.isIn("n", (0..<70_000).map { .int(Int64($0)) } + [.double(0.5)]))
        let sql = try #require(condition)
        #expect(count == 2, "one list of integers, one of Doubles")
        #expect(placeholders(in: sql) == [1, 2], "\(sql)")
        #expect(sql.contains("unnest(string_to_array($1::text, chr(1114111)))"), "\(sql)")
        #expect(!sql.contains("69999"), "the constants are bound, not written into the SQL")
    }

    @Test func aMembershipDroppedForOneUntranslatableValueLeavesNoParameterBehind() throws {
        let (condition, count) = translate(
            .and([.isIn("b", [.string("y"), .string("é")]), .compare("a", .equal, .string("x"))]))
        let sql = try #require(condition)
        #expect(count == 1)
        #expect(Set(placeholders(in: sql)) == [1], "\(sql)")
    }

    @Test func aListOfConstantsIsOneTextTheServerSplits() throws {
        var parameters = StatementParameters()
        #expect(parameters.append(texts: ["a", "b\"c", "d\\e", ""]) == "string_to_array($1::text, chr(1114111))")
        #expect(parameters.preparedValues.first?.string == "a\u{10FFFF}b\"c\u{10FFFF}d\\e\u{10FFFF}")
    }

    @Test func aListTheSeparatorCannotSplitIsAnArrayLiteralWithQuotesAndBackslashesEscaped() throws {
        var parameters = StatementParameters()
        #expect(parameters.append(texts: ["a\u{10FFFF}", "b\"c", "d\\e"]) == "$1::text::text[]")
        #expect(parameters.preparedValues.first?.string == #"{"a\#u{10FFFF}","b\"c","d\\e"}"#)
        #expect(
            parameters.append(texts: [""]) == "$2::text::text[]", "one empty text, which string_to_array reads as none")
        #expect(parameters.preparedValues.last?.string == #"{""}"#)
    }

    @Test func aNegationOfAnInexactPartLeavesNoParameterBehind() throws {
        let (condition, count) = translate(
            .and([
                .not(.and([.compare("a", .equal, .string("x")), .hasPrefix("b", "p")])),
                .compare("b", .notEqual, .string("q")),
            ]))
        let sql = try #require(condition)
        #expect(count == 1)
        #expect(placeholders(in: sql) == [1], "\(sql)")
    }

    @Test func aDisjunctionDroppedAfterItsFirstPartLeavesNoParameterBehind() {
        let (condition, count) = translate(.or([.compare("a", .equal, .string("x")), .hasPrefix("b", "p")]))
        #expect(condition == nil)
        #expect(count == 0)
    }

    @Test func anOrderingOfFlagsIsFalseWithoutAParameter() throws {
        let (condition, count) = translate(.compare("flag", .less, .bool(true)))
        #expect(condition == "FALSE")
        #expect(count == 0)
    }
}
