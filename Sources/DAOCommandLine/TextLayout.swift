import Foundation

/// Small text-formatting helpers shared by the commands' reports.
enum TextLayout {
    /// Rows padded into aligned columns, two spaces apart; columns in `rightAligned` (numbers)
    /// are aligned on the right. Trailing spaces are trimmed.
    static func table(_ rows: [[String]], rightAligned: Set<Int> = []) -> [String] {
        let columnCount = rows.map(\.count).max() ?? 0
        let widths = (0..<columnCount).map { column in
            rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0
        }
        return rows.map { row in
            var line = ""
            for (column, cell) in row.enumerated() {
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                if column > 0 { line += "  " }
                line += rightAligned.contains(column) ? padding + cell : cell + padding
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }

    /// `1 record`, `2 records`.
    static func count(_ value: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(value) " + (value == 1 ? singular : plural ?? singular + "s")
    }

    /// A size for people: bytes below 1 KiB, then KiB and MiB with one decimal.
    static func byteCount(_ bytes: Int) -> String {
        if bytes < 1024 { return "\(bytes) B" }
        let kibibytes = Double(bytes) / 1024
        if kibibytes < 1024 { return oneDecimal(kibibytes) + " KiB" }
        return oneDecimal(kibibytes / 1024) + " MiB"
    }

    /// `value` rounded to one decimal, without Foundation's locale-dependent formatting.
    static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Numeric keys in numeric order before other keys in byte order, so that `dump` lists ids
    /// 1, 2, 10 rather than 1, 10, 2. Ties (such as `01` and `1`) fall back to byte order.
    static func keyPrecedes(_ left: String, _ right: String) -> Bool {
        switch (Int(left), Int(right)) {
        case (let left?, let right?) where left != right: return left < right
        case (.some, nil): return true
        case (nil, .some): return false
        default: return left.utf8.lexicographicallyPrecedes(right.utf8)
        }
    }

    /// `path` quoted for a POSIX shell when it holds anything beyond the usual path characters.
    static func shellQuoted(_ path: String) -> String {
        let plain = path.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                || "/._-+:@%^,".unicodeScalars.contains(scalar)
        }
        return plain && !path.isEmpty ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
