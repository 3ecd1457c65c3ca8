/// A plain-text table: a title, a header row and rows, with the first column left-aligned (labels)
/// and the others right-aligned (numbers), so columns of figures line up for reading.
struct TextTable {
    var title: String
    var header: [String]
    var rows: [[String]] = []

    func rendered() -> String {
        let columnCount = ([header] + rows).map(\.count).max() ?? 0
        var widths = Array(repeating: 0, count: columnCount)
        for row in [header] + rows {
            for (column, cell) in row.enumerated() {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func line(_ row: [String]) -> String {
            row.enumerated().map { column, cell in
                let padding = String(repeating: " ", count: widths[column] - cell.count)
                return column == 0 ? cell + padding : padding + cell
            }.joined(separator: "  ")
        }
        let ruler = String(repeating: "-", count: widths.reduce(0, +) + 2 * max(columnCount - 1, 0))
        return ([title, line(header), ruler] + rows.map(line)).joined(separator: "\n")
    }
}
