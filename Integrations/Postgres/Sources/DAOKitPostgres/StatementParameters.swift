import DAOKit
import DAOKitSQL
import Foundation
import PostgresNIO

/// The constants a statement binds, `$1`, `$2`, …: each `append` returns the placeholder to write
/// into the SQL, with its type spelled out.
///
/// The same parameters run unnamed, as postgres-nio's typed `PostgresBindings`, or in a named
/// prepared statement (``PreparedStatements``), where PostgreSQL knows a parameter's type only
/// from the SQL. So the type is written into the SQL (`$3::text`, never left to inference:
/// `$3::numeric` would make the parameter itself `numeric`, and the text bound to it would be
/// read as a binary number), and no parameter may go unused (a prepared statement counts its
/// parameters from the SQL): SQL generation that drops a fragment drops its parameters with it
/// (``removeAll(after:)``).
struct StatementParameters: SQLParameterList {
    private enum Value {
        case text(String)
        case integer(Int)
    }

    private var values: [Value] = []

    /// How many constants have been appended.
    var count: Int { values.count }

    /// Appends `text` as a `text` parameter; returns its placeholder.
    mutating func append(text: String) -> String {
        values.append(.text(text))
        return "$\(count)::text"
    }

    /// Appends `integer` as an `int8` parameter; returns its placeholder.
    mutating func append(integer: Int) -> String {
        values.append(.integer(integer))
        return "$\(count)::int8"
    }

    /// Appends `texts` as one `text` parameter; returns an expression of type `text[]` holding them.
    ///
    /// One string to build and send, where postgres-nio's array encoding allocates a buffer per
    /// element, which a list of a hundred thousand constants makes slow: the texts joined by
    /// U+10FFFF and split by the server (`string_to_array`), or, when a text may hold that
    /// character or the list is one empty text (which `string_to_array` reads as no text), an
    /// array literal (`{"a","b"}`), which the server parses more slowly. The texts must not hold
    /// NUL, which PostgreSQL's text refuses.
    mutating func append(texts: [String]) -> String {
        // Whole-list operations of the standard library (`joined`) and C (`memchr`), which stay
        // quick on long lists even in a debug build, where a loop here would not.
        var all = texts.joined()
        func contains(_ byte: UInt8) -> Bool {
            all.withUTF8 { bytes in bytes.baseAddress.map { memchr($0, Int32(byte), bytes.count) != nil } ?? false }
        }
        // 0xF4 leads the UTF-8 of U+100000 and above, U+10FFFF among them.
        if !(texts.count == 1 && texts[0].isEmpty) && !texts.isEmpty && !contains(0xF4) {
            return "string_to_array(" + append(text: texts.joined(separator: "\u{10FFFF}")) + ", chr(1114111))"
        }
        let escaped =
            contains(UInt8(ascii: "\"")) || contains(UInt8(ascii: "\\"))
            ? texts.map { $0.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") }
            : texts
        return append(text: texts.isEmpty ? "{}" : "{\"" + escaped.joined(separator: "\",\"") + "\"}") + "::text[]"
    }

    /// Drops the parameters appended after the first `count`, whose SQL was dropped.
    mutating func removeAll(after count: Int) {
        values.removeSubrange(count...)
    }

    /// The parameters for a statement run unnamed.
    var bindings: PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .text(let text): bindings.append(text)
            case .integer(let integer): bindings.append(integer)
            }
        }
        return bindings
    }

    /// The parameters for a prepared statement, in the form postgres-nio binds them there.
    var preparedValues: [PostgresData] {
        values.map { value in
            switch value {
            case .text(let text): PostgresData(string: text)
            case .integer(let integer): PostgresData(int: integer)
            }
        }
    }
}
