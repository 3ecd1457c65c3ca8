import CSQLite

/// One column of the current row of a statement as SQLite holds it: its storage class and its
/// value, asked of SQLite once — the call for its class, and `sqlite3_column_bytes` for text and
/// blobs — so that the row's checksum and its decoding read the same bytes without asking again.
///
/// Text and blob bytes are SQLite's own, not copied: they stay valid until the statement steps,
/// is reset or finalized, or until a call converts that column to another representation (see
/// ``SQLiteRowReader/loadRow()``, which holds such values only while nothing may do that).
struct SQLiteColumnValue {
    /// `SQLITE_INTEGER`, `SQLITE_FLOAT`, `SQLITE_TEXT`, `SQLITE_BLOB` or `SQLITE_NULL`.
    let storageClass: Int32
    /// An integer's value, or a real's bit pattern; 0 for the other classes.
    let bits: UInt64
    /// The UTF-8 text (without its terminator) or the blob's bytes; `nil` when empty, NULL or a
    /// number.
    let bytes: UnsafePointer<UInt8>?
    /// The number of `bytes`.
    let count: Int

    /// A NULL value.
    static var null: SQLiteColumnValue { SQLiteColumnValue(storageClass: SQLITE_NULL, bits: 0, bytes: nil, count: 0) }

    private init(storageClass: Int32, bits: UInt64, bytes: UnsafePointer<UInt8>?, count: Int) {
        (self.storageClass, self.bits, self.bytes, self.count) = (storageClass, bits, bytes, count)
    }

    /// Column `column` of the statement's current row.
    @inline(__always)
    init(column: Int32, of statement: OpaquePointer) {
        let storageClass = sqlite3_column_type(statement, column)
        switch storageClass {
        case SQLITE_INTEGER:
            self.init(
                storageClass: storageClass, bits: UInt64(bitPattern: sqlite3_column_int64(statement, column)),
                bytes: nil, count: 0)
        case SQLITE_FLOAT:
            self.init(
                storageClass: storageClass, bits: sqlite3_column_double(statement, column).bitPattern, bytes: nil,
                count: 0)
        case SQLITE_TEXT:
            // Text before its length, as SQLite advises: the length is then of the UTF-8 text.
            let text = sqlite3_column_text(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            self.init(
                storageClass: storageClass, bits: 0, bytes: count > 0 ? text : nil, count: text == nil ? 0 : count)
        case SQLITE_BLOB:
            let blob = sqlite3_column_blob(statement, column)?.assumingMemoryBound(to: UInt8.self)
            let count = Int(sqlite3_column_bytes(statement, column))
            self.init(
                storageClass: storageClass, bits: 0, bytes: count > 0 ? blob : nil, count: blob == nil ? 0 : count)
        default:
            self = .null
        }
    }

    /// The integer of an `SQLITE_INTEGER` value.
    @inline(__always)
    var integer: Int64 { Int64(bitPattern: bits) }

    /// The real number of an `SQLITE_FLOAT` value.
    @inline(__always)
    var real: Double { Double(bitPattern: bits) }

    /// The text or blob bytes, empty for the other classes.
    @inline(__always)
    var buffer: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: bytes, count: count) }

    /// The text as a string (its bytes decoded as UTF-8; empty for the other classes).
    @inline(__always)
    var text: String { String(decoding: buffer, as: UTF8.self) }
}
