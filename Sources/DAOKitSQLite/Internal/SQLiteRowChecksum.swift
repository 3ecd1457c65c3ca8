import CSQLite
import DAOKitInternals
import DAOKitSQL
import Foundation

/// The checksum of an entity table's row, stored in its `daokit_checksum` column so that a row
/// whose bytes changed in the file (SQLite keeps no page checksums) is reported as damaged rather
/// than read as another value, or another key.
///
/// Every non-NULL column but the checksum itself contributes — the key too — the CRC-32C of its
/// name, a NUL, its storage class and its value's bytes (integers and reals as 8 little-endian
/// bytes, text as UTF-8, blobs as they are). The contributions are combined with XOR, so that
/// the column order of the table (which `ALTER TABLE` may change) does not matter, and a row
/// read back computes the same value from the columns alone. A NULL checksum is a row written
/// before checksums (or by an earlier release): it is read unchecked, and a rewrite adds one.
///
/// `package`, so that `dao verify` checks rows exactly as the context does.
package enum SQLiteRowChecksum {
    /// The column that holds the checksum.
    package static let columnName = "daokit_checksum"
    /// The column that holds the storage key.
    package static let keyColumnName = "daokit_key"

    /// What a column's name contributes before its value: the start of its CRC.
    package static func namePrefix(_ name: String) -> UInt32 {
        var separator: UInt8 = 0
        let named = CRC32C.checksum(utf8: name)
        return withUnsafeBytes(of: &separator) { CRC32C.checksum($0, continuing: named) }
    }

    /// A column's name followed by each storage class's tag: where the CRC of a value of that class
    /// continues from, so that a value costs one CRC call over its own bytes. Made once per
    /// column of a statement (reading) or of a save (writing), not per row.
    package struct ColumnPrefix {
        let integer: UInt32
        let real: UInt32
        let text: UInt32
        let blob: UInt32

        /// The prefixes of the column `name`.
        package init(_ name: String) {
            let prefix = SQLiteRowChecksum.namePrefix(name)
            func tagged(_ storageClass: Int32) -> UInt32 {
                var tag = UInt8(truncatingIfNeeded: storageClass)
                return withUnsafeBytes(of: &tag) { CRC32C.checksum($0, continuing: prefix) }
            }
            (integer, real, text, blob) = (
                tagged(SQLITE_INTEGER), tagged(SQLITE_FLOAT), tagged(SQLITE_TEXT), tagged(SQLITE_BLOB)
            )
        }
    }

    /// What a value bound to the column named by `prefix` contributes (NULL: nothing).
    package static func contribution(_ prefix: ColumnPrefix, _ value: SQLiteValue) -> UInt32 {
        switch value {
        case .null:
            return 0
        case .integer(let number):
            return withUnsafeBytes(of: number.littleEndian) { CRC32C.checksum($0, continuing: prefix.integer) }
        case .real(let number):
            return withUnsafeBytes(of: number.bitPattern.littleEndian) { CRC32C.checksum($0, continuing: prefix.real) }
        case .text(let string):
            var string = string
            return string.withUTF8 { CRC32C.checksum(UnsafeRawBufferPointer($0), continuing: prefix.text) }
        case .blob(let data):
            return data.withUnsafeBytes { CRC32C.checksum($0, continuing: prefix.blob) }
        }
    }

    /// What the key contributes.
    package static func keyContribution(_ key: String) -> UInt32 {
        contribution(keyPrefix, .text(key))
    }

    private static let keyPrefix = ColumnPrefix(keyColumnName)

    /// What a column's value read from a row contributes (NULL: nothing): the same as
    /// ``contribution(_:_:)`` gives for the value bound when the row was written.
    @inline(__always)
    static func contribution(_ prefix: ColumnPrefix, _ value: SQLiteColumnValue) -> UInt32 {
        switch value.storageClass {
        case SQLITE_INTEGER:
            return withUnsafeBytes(of: value.bits.littleEndian) { CRC32C.checksum($0, continuing: prefix.integer) }
        case SQLITE_FLOAT:
            return withUnsafeBytes(of: value.bits.littleEndian) { CRC32C.checksum($0, continuing: prefix.real) }
        case SQLITE_TEXT:
            return CRC32C.checksum(UnsafeRawBufferPointer(value.buffer), continuing: prefix.text)
        case SQLITE_BLOB:
            return CRC32C.checksum(UnsafeRawBufferPointer(value.buffer), continuing: prefix.blob)
        default:
            return 0
        }
    }

    /// The columns of a `SELECT *` on an entity table, ready to check its rows.
    package struct RowLayout {
        /// Each column's prefixes but the checksum column's, with its position.
        private let columns: [(position: Int32, prefix: ColumnPrefix)]
        /// The checksum column's position; `nil` in a table written before checksums.
        package let checksumColumn: Int32?

        /// The layout of the statement's result columns.
        package init(statement: OpaquePointer) {
            let count = sqlite3_column_count(statement)
            self.init(names: (0..<count).map { sqlite3_column_name(statement, $0).map { String(cString: $0) } ?? "" })
        }

        /// The layout of result columns named `names`, in order.
        package init(names: [String]) {
            var columns: [(position: Int32, prefix: ColumnPrefix)] = []
            var checksumColumn: Int32?
            for (position, name) in names.enumerated() {
                if name == SQLiteRowChecksum.rowidColumnName { break }  // not part of the row
                if name == SQLiteRowChecksum.columnName {
                    checksumColumn = Int32(position)
                } else {
                    columns.append((Int32(position), ColumnPrefix(name)))
                }
            }
            self.columns = columns
            self.checksumColumn = checksumColumn
        }

        /// Whether the statement's current row holds what its checksum says: `true` also for a
        /// row without one (written before checksums), `false` when a byte of it changed.
        package func rowIsIntact(_ statement: OpaquePointer) -> Bool {
            rowIsIntact { SQLiteColumnValue(column: $0, of: statement) }
        }

        /// The same check on a row already read (``SQLiteRowReader/loadRow()``): `row[i]` is column `i`.
        @inline(__always)
        func rowIsIntact(_ row: UnsafeBufferPointer<SQLiteColumnValue>) -> Bool {
            rowIsIntact { row[Int($0)] }
        }

        /// The check itself, over the values `column` gives by position. A stored checksum that
        /// is not an integer (DAOKit binds one) is damage too.
        @inline(__always)
        private func rowIsIntact(_ column: (Int32) -> SQLiteColumnValue) -> Bool {
            guard let checksumColumn else { return true }
            let stored = column(checksumColumn)
            if stored.storageClass == SQLITE_NULL { return true }
            guard stored.storageClass == SQLITE_INTEGER else { return false }
            var computed: UInt32 = 0
            columns.withUnsafeBufferPointer { columns in
                for entry in columns {
                    computed ^= SQLiteRowChecksum.contribution(entry.prefix, column(entry.position))
                }
            }
            return stored.integer == Int64(computed)
        }
    }

    /// The name under which `fetchReadable` selects each row's rowid, after the row's columns;
    /// not part of the row, so not checksummed.
    package static let rowidColumnName = "daokit_rowid"

    /// The problem with a scan that met rows out of rowid order.
    package static func rowsOutOfOrder(_ count: Int) -> String {
        "a scan of the table met \(count) rows out of order: a damaged page leads back into the table or a row's rowid changed (run 'dao verify')"
    }

    /// The problem with a key whose index entry leads to a row of another key.
    package static let indexLeadsElsewhere =
        "the key's index entry leads to a row of another key: the index or the table is damaged (run 'dao verify')"
    /// The problem with a key the table holds a row for but its index does not list.
    package static let unlistedRow =
        "the table holds a row for this key that the key's index does not list: the index is damaged (run 'dao verify')"
    /// The problem with a table whose rows and key index disagree in number.
    package static func rowsAndIndexDisagree(rows: Int, indexed: Int) -> String {
        "the table's pages lead to \(rows) rows but its key index lists \(indexed): damaged pages hide records (run 'dao verify')"
    }
    /// The problem with a key the index lists but no row of the table holds.
    package static let unreachableRow =
        "the key's index lists it but no row of the table holds it: the table's pages, or its row's key, are damaged (run 'dao verify')"

    /// The problem a damaged row is reported with.
    package static let mismatch =
        "the row's checksum does not match its contents: bytes of it changed in the file (run 'dao verify')"
}
