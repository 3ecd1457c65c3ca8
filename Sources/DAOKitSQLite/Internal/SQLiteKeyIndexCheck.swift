import CSQLite

/// What a connection learned by comparing an entity table's key index with the table itself: the
/// keys of the rows that a lookup through the index does not find — none, unless the file is
/// damaged.
///
/// `fetch` finds a row through the key's index. When the index has no entry for the key, `nil`
/// is the right answer only if no row of the table holds the key: a damaged index page can hide
/// a stored row. Searching the table on every miss would make each miss cost a scan of the
/// table; instead, the first miss on a table looks every row's key up through the index once
/// (one scan of the table, and per row the very lookup `fetch` makes), and the connection
/// remembers the keys that were not found (see ``SQLiteStorageContext/State``). Later misses
/// answer from that memory until another connection commits (`PRAGMA data_version` changes), or
/// until this connection writes to a table whose index was found damaged (a damaged B-tree may
/// hide other rows once SQLite rebalances it); a sound index stays sound under the connection's
/// own writes, which SQLite applies to the table and its index together. A new connection (a
/// reopened context, a transaction's handle) compares again.
///
/// Damage done to the file behind an open connection's back, without a commit, is not seen by
/// misses until the file is opened again; `dao verify` finds it.
struct SQLiteKeyIndexCheck {
    /// The keys, as their stored UTF-8 bytes, of the rows that the index does not lead to.
    let unlisted: Set<[UInt8]>

    /// Whether the index leads to every row of the table.
    var isSound: Bool { unlisted.isEmpty }

    /// Looks the key of every row of `table` up through its key index, on `connection`.
    /// - Throws: ``SQLiteError`` when SQLite cannot read the table or the index
    ///   (`SQLITE_CORRUPT` for a page it finds damaged).
    init(table: SQLiteTable, connection: SQLiteConnection) throws(SQLiteError) {
        let scan = try connection.statement("SELECT daokit_key FROM \(table.quotedName) NOT INDEXED")
        defer { scan.reset() }
        let lookup = try connection.statement(
            "SELECT 1 FROM \(table.quotedName) INDEXED BY \(table.keyIndex) WHERE daokit_key = ?")
        defer { lookup.reset() }
        var unlisted = Set<[UInt8]>()
        while try scan.step() {
            // A text key only: `fetch` binds its key as text, which never equals a number or a
            // blob, so a row whose key is not text (its type byte damaged) cannot be the row a
            // miss hides; reads that walk the table report it (its checksum).
            guard sqlite3_column_type(scan.handle, 0) == SQLITE_TEXT else { continue }
            // Text before its length, as SQLite advises. The scan's own bytes are bound, valid
            // until its next step (the lookup is done by then), through a pointer that is never
            // NULL, which SQLite would bind as NULL.
            let text = sqlite3_column_text(scan.handle, 0)
            let count = text == nil ? 0 : Int(sqlite3_column_bytes(scan.handle, 0))
            let bytes = UnsafeBufferPointer(start: text, count: count)
            lookup.reset()
            let bound = Self.emptyText.withUnsafeBufferPointer { empty in
                bytes.withMemoryRebound(to: CChar.self) { key in
                    sqlite3_bind_text(lookup.handle, 1, key.baseAddress ?? empty.baseAddress, Int32(count), nil)
                }
            }
            if bound != SQLITE_OK { throw lookup.failure(bound) }
            if try !lookup.step() { unlisted.insert(Array(bytes)) }
        }
        self.unlisted = unlisted
    }

    private static let emptyText: [CChar] = [0]

    /// Whether a lookup of `key` through the index that found nothing means the table holds no
    /// row for it; `false` when the table holds a row for `key` that the index does not lead to.
    func confirmsMiss(of key: String) -> Bool {
        isSound || !unlisted.contains(Array(key.utf8))
    }
}
