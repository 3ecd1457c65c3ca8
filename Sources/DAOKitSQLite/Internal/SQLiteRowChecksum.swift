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
        CRC32C.checksum(Data([0]), continuing: CRC32C.checksum(utf8: name))
    }

    @inline(__always)
    private static func contribution(_ prefix: UInt32, _ storageClass: Int32, _ bytes: UnsafeRawBufferPointer) -> UInt32
    {
        var tag = UInt8(truncatingIfNeeded: storageClass)
        let tagged = withUnsafeBytes(of: &tag) { CRC32C.checksum($0, continuing: prefix) }
        return CRC32C.checksum(bytes, continuing: tagged)
    }

    /// What a value bound to the column named by `prefix` contributes (NULL: nothing).
    package static func contribution(_ prefix: UInt32, _ value: SQLiteValue) -> UInt32 {
        switch value {
        case .null:
            return 0
        case .integer(let number):
            return withUnsafeBytes(of: number.littleEndian) { contribution(prefix, SQLITE_INTEGER, $0) }
        case .real(let number):
            return withUnsafeBytes(of: number.bitPattern.littleEndian) { contribution(prefix, SQLITE_FLOAT, $0) }
        case .text(let string):
            var string = string
            return string.withUTF8 { contribution(prefix, SQLITE_TEXT, UnsafeRawBufferPointer($0)) }
        case .blob(let data):
            return data.withUnsafeBytes { contribution(prefix, SQLITE_BLOB, $0) }
        }
    }

    /// What the key contributes.
    package static func keyContribution(_ key: String) -> UInt32 {
        contribution(keyPrefix, .text(key))
    }

    private static let keyPrefix = namePrefix(keyColumnName)

    /// What column `column` of the statement's current row contributes (NULL: nothing).
    package static func contribution(_ prefix: UInt32, column: Int32, of statement: OpaquePointer) -> UInt32 {
        let storageClass = sqlite3_column_type(statement, column)
        switch storageClass {
        case SQLITE_INTEGER:
            return withUnsafeBytes(of: sqlite3_column_int64(statement, column).littleEndian) {
                contribution(prefix, storageClass, $0)
            }
        case SQLITE_FLOAT:
            return withUnsafeBytes(of: sqlite3_column_double(statement, column).bitPattern.littleEndian) {
                contribution(prefix, storageClass, $0)
            }
        case SQLITE_TEXT:
            let bytes = sqlite3_column_text(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            return contribution(
                prefix, storageClass, UnsafeRawBufferPointer(start: count > 0 ? bytes : nil, count: count))
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            return contribution(
                prefix, storageClass, UnsafeRawBufferPointer(start: count > 0 ? bytes : nil, count: count))
        default:
            return 0
        }
    }

    /// The columns of a `SELECT *` on an entity table, ready to check its rows.
    package struct RowLayout {
        /// Each column's ``namePrefix(_:)``; the checksum column's is unused.
        let prefixes: [UInt32]
        /// The checksum column's position; `nil` in a table written before checksums.
        package let checksumColumn: Int32?

        /// The layout of the statement's result columns.
        package init(statement: OpaquePointer) {
            let count = sqlite3_column_count(statement)
            var prefixes: [UInt32] = []
            var checksumColumn: Int32?
            for column in 0..<count {
                let name = sqlite3_column_name(statement, column).map { String(cString: $0) } ?? ""
                if name == SQLiteRowChecksum.columnName { checksumColumn = column }
                if name == SQLiteRowChecksum.rowidColumnName { break }  // not part of the row
                prefixes.append(SQLiteRowChecksum.namePrefix(name))
            }
            self.prefixes = prefixes
            self.checksumColumn = checksumColumn
        }

        /// Whether the current row holds what its checksum says: `true` also for a row without
        /// one (written before checksums), `false` when a byte of it changed.
        package func rowIsIntact(_ statement: OpaquePointer) -> Bool {
            guard let checksumColumn, sqlite3_column_type(statement, checksumColumn) != SQLITE_NULL else { return true }
            let stored = sqlite3_column_int64(statement, checksumColumn)
            var computed: UInt32 = 0
            for column in 0..<Int32(prefixes.count) where column != checksumColumn {
                computed ^= SQLiteRowChecksum.contribution(prefixes[Int(column)], column: column, of: statement)
            }
            return stored == Int64(computed)
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
