/// The output of `ratios`: readable tables first, then the machine-readable summary lines, which
/// must come last so scripts (and people) can take the tail of the output.
struct RatioReport {
    private var blocks: [String] = []
    private var summaryLines: [String] = []

    /// Adds a table (or any block of text) to the readable part.
    mutating func add(_ table: TextTable) {
        blocks.append(table.rendered())
    }

    /// Adds a free-text note to the readable part, such as how the numbers were obtained.
    mutating func addNote(_ note: String) {
        blocks.append(note)
    }

    /// Adds a line to the final summary, e.g.
    /// `RATIO Message.p2e mapper/manual=8.41 json/mapper=21.3 allocs=2`.
    mutating func addSummaryLine(_ line: String) {
        summaryLines.append(line)
    }

    func rendered() -> String {
        (blocks + [summaryLines.joined(separator: "\n")]).joined(separator: "\n\n")
    }
}
