import DAOKit

/// Names and text spelled into SQL statements, for every SQL context (SQLite here, PostgreSQL in
/// `DAOKitPostgres`) and the `dao` tool: both dialects quote the same way.
///
/// Values always go to the database as bound parameters; only names (tables, columns, indexes,
/// JSON keys inside expression indexes, which must be literals for the index to match) are quoted.
public enum SQLQuoting {
    /// `name` as an SQL identifier: in double quotes, each `"` doubled.
    public static func identifier(_ name: String) -> String {
        "\"" + doubling(UInt8(ascii: "\""), in: name) + "\""
    }

    /// `text` as an SQL string literal: in single quotes, each `'` doubled.
    public static func literal(_ text: String) -> String {
        "'" + doubling(UInt8(ascii: "'"), in: text) + "'"
    }

    /// `text` with every `quote` byte doubled. Works on UTF-8 bytes, not characters: a quote
    /// followed by a combining mark is one `Character` that is not a quote, yet the database sees
    /// the quote. (Foundation's `replacingOccurrences` did the same on UTF-16 units, at about a
    /// microsecond a call through `NSString` on Linux, five calls per query.)
    private static func doubling(_ quote: UInt8, in text: String) -> String {
        guard text.utf8.contains(quote) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        for byte in text.utf8 {
            if byte == quote { bytes.append(quote) }
            bytes.append(byte)
        }
        // Valid UTF-8 in, an ASCII byte doubled: valid UTF-8 out.
        return String(decoding: bytes, as: UTF8.self)
    }
}
