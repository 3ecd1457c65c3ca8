import CSQLite
import DAOKit
import Foundation

/// Reads typed values from the current row of a `SELECT *` on an entity table: what the row
/// decoder's containers call. One per query; its column list is read once, not per row.
///
/// Column 0 is `daokit_key`; the field columns follow in table order, which is the order
/// `encode(to:)` first wrote them — so a decoder reading keys in that order finds each column
/// at ``hint`` without searching.
///
/// The row is read from SQLite once (``loadRow()``), into ``row``: its checksum and every typed
/// read below use those values, so that checking a row costs its CRC and not a second round of
/// `sqlite3_column_*` calls.
final class SQLiteRowReader {
    let statement: OpaquePointer
    /// Field column names; the name at position `i` is SQLite column `i + 1`. While a row of an
    /// older entity version is decoded (``withNames(of:_:)``), the names its fields answer to.
    private(set) var names: [String]
    /// The column names as the table has them (``names`` outside ``withNames(of:_:)``).
    let storedNames: [String]
    /// ``names`` for each plan a row of this query was decoded with, and for the last one.
    private var namesByPlan: [ObjectIdentifier: [String]] = [:]
    private var lastPlan: ObjectIdentifier?
    private var lastPlanNames: [String] = []
    /// The next column position a lookup tries first.
    private var hint = 0
    /// What checks each row against its stored checksum.
    let checksums: SQLiteRowChecksum.RowLayout
    /// The columns of the row's entity version and of the oldest version that reads it
    /// (``SQLiteEntityVersions``); `nil` in a table written before versions.
    let versionColumn: Int32?
    let readableFromColumn: Int32?
    /// The current row, column `i` at `row[i]`, as ``loadRow()`` last read it.
    ///
    /// The fence around reading a row once. Invariant: between ``loadRow()`` and the statement's
    /// next step or reset, nothing asks SQLite for this row's columns in another representation
    /// (`sqlite3_column_text` of a blob or a number, `sqlite3_column_blob` of a number, any
    /// `*_text16`), which could free the text and blob bytes the values point to. The typed reads
    /// use the values only; ``key`` and ``keyEquals(_:)`` ask SQLite, and are called only before
    /// `loadRow()` or once the row is decoded or found damaged. A pointer's buffer, not an array,
    /// so that reading a value takes no exclusivity check.
    private let row: UnsafeMutableBufferPointer<SQLiteColumnValue>
    /// How many columns ``loadRow()`` reads: all but the rowid `fetchReadable` selects last
    /// (``SQLiteRowChecksum/rowidColumnName``), which it reads itself and no field is; its
    /// value stays NULL.
    private let loadedColumns: Int

    init(statement: SQLiteStatement) {
        self.statement = statement.handle
        let count = Int(statement.columnCount)
        let columnNames = (0..<count).map { statement.columnName(Int32($0)) }
        names = Array(columnNames.dropFirst())
        storedNames = names
        checksums = SQLiteRowChecksum.RowLayout(names: columnNames)
        versionColumn = columnNames.firstIndex(of: SQLiteEntityVersions.versionColumn).map(Int32.init)
        readableFromColumn = columnNames.firstIndex(of: SQLiteEntityVersions.readableFromColumn).map(Int32.init)
        row = .allocate(capacity: count)
        row.initialize(repeating: .null)
        loadedColumns = count > 1 && columnNames.last == SQLiteRowChecksum.rowidColumnName ? count - 1 : count
    }

    deinit { row.deallocate() }

    /// Reads the statement's current row (each column once) and starts it: lookups start from
    /// the first field again. Call after every step that returned a row, before anything else
    /// reads it through this reader.
    @inline(__always)
    func loadRow() {
        for column in 0..<loadedColumns { row[column] = SQLiteColumnValue(column: Int32(column), of: statement) }
        hint = 0
    }

    /// Whether the row ``loadRow()`` read holds what its checksum says (``SQLiteRowChecksum``):
    /// `true` also for a row without one, `false` when a byte of it changed.
    @inline(__always)
    var rowIsIntact: Bool { checksums.rowIsIntact(UnsafeBufferPointer(row)) }

    /// Column `column` of the row ``loadRow()`` read.
    @inline(__always)
    func value(_ column: Int32) -> SQLiteColumnValue { row[Int(column)] }

    /// Runs `body` with ``names`` the names the columns answer to in a record of `plan`'s version
    /// (``ResolutionPlan/currentNames(ofStored:)``), so that the row decoder finds a renamed
    /// field under its current name and no field under a name it does not hold there.
    @inline(__always)
    func withNames<R>(of plan: ResolutionPlan, _ body: () throws -> R) rethrows -> R {
        let id = ObjectIdentifier(plan)
        if lastPlan != id {
            // Rows of one version usually follow each other: the dictionary only for a change.
            if let known = namesByPlan[id] {
                lastPlanNames = known
            } else {
                lastPlanNames = plan.currentNames(ofStored: storedNames)
                namesByPlan[id] = lastPlanNames
            }
            lastPlan = id
        }
        names = lastPlanNames
        defer {
            names = storedNames
            hint = 0
        }
        return try body()
    }

    /// The SQLite column holding field `name`, or `nil` when the table has no such column.
    @inline(__always)
    func column(_ name: String) -> Int32? {
        let count = names.count
        if hint < count && names[hint] == name {
            hint += 1
            return Int32(hint)
        }
        for position in 0..<count where names[position] == name {
            hint = position + 1
            return Int32(hint)
        }
        return nil
    }

    /// The storage key of the current row, asked of SQLite (see ``row`` for when).
    var key: String {
        let count = Int(sqlite3_column_bytes(statement, 0))
        guard count > 0, let bytes = sqlite3_column_text(statement, 0) else { return "" }
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// Whether the current row's key is `key`, compared by bytes without making a string; asked
    /// of SQLite (see ``row`` for when).
    @inline(__always)
    func keyEquals(_ key: String) -> Bool {
        guard sqlite3_column_type(statement, 0) == SQLITE_TEXT else { return false }
        let count = Int(sqlite3_column_bytes(statement, 0))
        var key = key
        return key.withUTF8 { expected in
            guard expected.count == count else { return false }
            guard count > 0, let bytes = sqlite3_column_text(statement, 0) else { return count == 0 }
            return memcmp(bytes, expected.baseAddress!, count) == 0
        }
    }

    @inline(__always)
    func type(_ column: Int32) -> Int32 { row[Int(column)].storageClass }

    @inline(__always)
    func isNull(_ column: Int32?) -> Bool {
        guard let column else { return true }
        return row[Int(column)].storageClass == SQLITE_NULL
    }

    @inline(__always)
    func text(_ column: Int32) -> String { row[Int(column)].text }

    // MARK: Typed reads. `path` is the coding path of the value, for errors only.

    func string(_ column: Int32, _ path: @autoclosure () -> [any CodingKey]) throws -> String {
        guard type(column) == SQLITE_TEXT else { throw mismatch(String.self, column, path()) }
        return text(column)
    }

    func bool(_ column: Int32, _ path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        guard type(column) == SQLITE_INTEGER else { throw mismatch(Bool.self, column, path()) }
        switch value(column).integer {
        case 0: return false
        case 1: return true
        default: throw mismatch(Bool.self, column, path())
        }
    }

    func integer<T: FixedWidthInteger>(_ type: T.Type, _ column: Int32, _ path: @autoclosure () -> [any CodingKey])
        throws -> T
    {
        switch self.type(column) {
        case SQLITE_INTEGER:
            let value = value(column).integer
            guard let exact = T(exactly: value) else {
                throw DecodingError.dataCorrupted(
                    .init(codingPath: path(), debugDescription: "\(value) does not fit in \(T.self)"))
            }
            return exact
        case SQLITE_TEXT:
            // A UInt64 above Int64.max is stored as its digits.
            guard let exact = T(text(column), radix: 10) else { throw mismatch(T.self, column, path()) }
            return exact
        default:
            throw mismatch(T.self, column, path())
        }
    }

    func double(_ column: Int32, _ path: @autoclosure () -> [any CodingKey]) throws -> Double {
        switch type(column) {
        case SQLITE_FLOAT: return value(column).real
        case SQLITE_INTEGER: return Double(value(column).integer)
        case SQLITE_TEXT where text(column) == "NaN": return .nan
        default: throw mismatch(Double.self, column, path())
        }
    }

    func date(_ column: Int32, _ path: @autoclosure () -> [any CodingKey]) throws -> Date {
        Date(timeIntervalSinceReferenceDate: try double(column, path()))
    }

    func uuid(_ column: Int32, _ path: @autoclosure () -> [any CodingKey]) throws -> UUID {
        guard type(column) == SQLITE_TEXT, let uuid = UUIDText.parse(value(column)) else {
            throw mismatch(UUID.self, column, path())
        }
        return uuid
    }

    func url(_ column: Int32, _ path: @autoclosure () -> [any CodingKey]) throws -> URL {
        let string = try self.string(column, path())
        if string.hasPrefix("{"),
            let relative = try? SQLiteRowDecoding.json.decode(
                RelativeURLCoding.RelativeURL.self, from: Data(string.utf8)),
            let url = relative.url
        {
            return url
        }
        guard let url = URL(string: string) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: path(), debugDescription: "Invalid URL string \(string.debugDescription)"))
        }
        return url
    }

    func data(_ column: Int32, _ path: @autoclosure () -> [any CodingKey]) throws -> Data {
        guard type(column) == SQLITE_BLOB else { throw mismatch(Data.self, column, path()) }
        return Data(value(column).buffer)
    }

    func decimal(_ column: Int32, _ path: @autoclosure () -> [any CodingKey]) throws -> Decimal {
        switch type(column) {
        case SQLITE_TEXT:
            guard let decimal = Decimal(string: text(column), locale: Locale(identifier: "en_US_POSIX")) else {
                throw mismatch(Decimal.self, column, path())
            }
            return decimal
        case SQLITE_INTEGER: return Decimal(value(column).integer)
        case SQLITE_FLOAT: return Decimal(value(column).real)
        default: throw mismatch(Decimal.self, column, path())
        }
    }

    /// The error for a column whose storage class does not hold a `T`.
    func mismatch(_ type: Any.Type, _ column: Int32, _ path: [any CodingKey]) -> DecodingError {
        if self.type(column) == SQLITE_NULL {
            return DecodingError.valueNotFound(
                type, .init(codingPath: path, debugDescription: "Expected \(type) but found null"))
        }
        let found: String
        switch self.type(column) {
        case SQLITE_INTEGER: found = "an integer (\(value(column).integer))"
        case SQLITE_FLOAT: found = "a real number (\(value(column).real))"
        case SQLITE_TEXT: found = "text \(String(text(column).prefix(40)).debugDescription)"
        default: found = "a blob"
        }
        return DecodingError.typeMismatch(
            type, .init(codingPath: path, debugDescription: "Expected \(type) but found \(found)"))
    }
}

/// Parses a UUID's text straight from a column's bytes: `UUID(uuidString:)` would need a
/// `String` first.
enum UUIDText {
    static func parse(_ value: SQLiteColumnValue) -> UUID? {
        guard value.count == 36, let text = value.bytes else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var position = 0
        let ok = withUnsafeMutableBytes(of: &bytes) { out -> Bool in
            for index in 0..<16 {
                if position == 8 || position == 13 || position == 18 || position == 23 {
                    guard text[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                }
                guard let high = nibble(text[position]), let low = nibble(text[position + 1]) else { return false }
                out[index] = high << 4 | low
                position += 2
            }
            return true
        }
        return ok ? UUID(uuid: bytes) : nil
    }

    @inline(__always)
    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}
