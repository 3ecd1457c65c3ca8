import CSQLite
import DAOKit

/// The `DAOKIT` collation: orders and equates text the way Swift's `String` `<` and `==` do
/// (by Unicode canonical equivalence: `"\u{212A}" == "K"`, NFC `"é"` == NFD `"é"`), so that a
/// string comparison in SQL gives exactly the answer ``StorageFilter`` defines.
///
/// Every translated comparison and `ORDER BY` term names it, and so does every column of the
/// declared indexes (an index serves a comparison only under the same collation). The columns
/// themselves keep SQLite's default, so the `sqlite3` shell, which lacks this collation, reads,
/// filters and sorts them by bytes; only writing a table with an index needs it (the article
/// "SQLite", "Layout").
///
/// `package`, so that every connection DAOKit opens registers the one same collation: the
/// context's and the `dao` tool's (which could not read an index, nor run `PRAGMA
/// integrity_check` on one, without it).
package enum SwiftStringCollation {
    /// The collation's name in SQL (`COLLATE DAOKIT`).
    package static let name = "DAOKIT"

    /// Registers the collation on a connection. SQLite reports a failure only for an invalid name
    /// or encoding, neither of which this call passes, so nothing is returned.
    package static func register(on database: OpaquePointer) {
        sqlite3_create_collation_v2(database, name, SQLITE_UTF8, nil, compare, nil)
    }

    /// The comparison SQLite calls: negative, zero or positive as Swift orders the two strings.
    ///
    /// Fast path (the invariant): two strings of ASCII bytes only are in NFC already and Swift
    /// orders them by their scalars, which are their bytes — so a byte comparison is exact.
    /// Anything else is compared as Swift `String`s.
    private static let compare:
        @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = {
            _, lhsCount, lhs, rhsCount, rhs in
            let left = UnsafeRawBufferPointer(start: lhs, count: lhs == nil ? 0 : Int(lhsCount))
            let right = UnsafeRawBufferPointer(start: rhs, count: rhs == nil ? 0 : Int(rhsCount))
            if isASCII(left) && isASCII(right) {
                let common = min(left.count, right.count)
                for position in 0..<common where left[position] != right[position] {
                    return left[position] < right[position] ? -1 : 1
                }
                return left.count == right.count ? 0 : (left.count < right.count ? -1 : 1)
            }
            let a = String(decoding: left, as: UTF8.self)
            let b = String(decoding: right, as: UTF8.self)
            return a < b ? -1 : (a == b ? 0 : 1)
        }

    @inline(__always)
    private static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        for byte in bytes where byte >= 0x80 { return false }
        return true
    }
}
