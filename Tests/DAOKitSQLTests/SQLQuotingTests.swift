import CSQLite
import DAOKit
import DAOKitSQL
import Testing

/// Names spelled into SQL: every quote doubled, nothing else touched, and the database reads back
/// exactly the text that went in — a quote that a combining mark makes part of a larger character
/// included, which a character-by-character escaper would miss.
@Suite("SQL quoting")
struct SQLQuotingTests {
    static let texts = [
        "plain", "", "it's", "say \"hi\"", "''", "\"\"", "'\u{301}", "\"\u{301}", "naïve 'ünïcödé' \"名前\"",
    ]

    @Test func quotesAreDoubledAndNothingElseChanges() {
        #expect(SQLQuoting.identifier("plain") == "\"plain\"")
        #expect(SQLQuoting.identifier("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(SQLQuoting.literal("it's") == "'it''s'")
        #expect(SQLQuoting.literal("say \"hi\"") == "'say \"hi\"'")
        #expect(SQLQuoting.identifier("it's") == "\"it's\"")
        #expect(SQLQuoting.literal("'\u{301}") == "'''\u{301}'")
    }

    @Test(arguments: texts)
    func theDatabaseReadsBackTheTextOfALiteralAndAnIdentifier(_ text: String) throws {
        var database: OpaquePointer?
        #expect(sqlite3_open(":memory:", &database) == SQLITE_OK)
        defer { sqlite3_close(database) }
        let sql = "SELECT \(SQLQuoting.literal(text)) AS \(SQLQuoting.identifier(text.isEmpty ? "x" : text))"
        var statement: OpaquePointer?
        try #require(sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        try #require(sqlite3_step(statement) == SQLITE_ROW)
        #expect(String(cString: sqlite3_column_text(statement, 0)) == text)
        #expect(String(cString: sqlite3_column_name(statement, 0)) == (text.isEmpty ? "x" : text))
    }

    @Test func anUnbalancedQuoteCannotEndTheLiteralEarly() throws {
        var database: OpaquePointer?
        #expect(sqlite3_open(":memory:", &database) == SQLITE_OK)
        defer { sqlite3_close(database) }
        // Were the quote not doubled, the statement would end the literal and drop the table.
        #expect(sqlite3_exec(database, "CREATE TABLE kept (x)", nil, nil, nil) == SQLITE_OK)
        let text = "x'); DROP TABLE kept; --"
        #expect(sqlite3_exec(database, "SELECT \(SQLQuoting.literal(text))", nil, nil, nil) == SQLITE_OK)
        #expect(sqlite3_exec(database, "SELECT count(*) FROM kept", nil, nil, nil) == SQLITE_OK)
    }
}
