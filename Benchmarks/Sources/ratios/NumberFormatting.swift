import Foundation

/// How numbers are written in the report: few enough digits to read at a glance, and always with
/// `.` as the decimal separator, whatever the locale, so the summary lines parse everywhere.
enum NumberFormatting {
    /// Three significant digits without exponent: `8.41`, `21.3`, `270`, `0.982`.
    static func ratio(_ value: Double) -> String {
        guard value.isFinite, value > 0 else { return value.isNaN ? "nan" : String(value) }
        let magnitude = Int(log10(value).rounded(.down))
        return fixed(value, decimals: max(0, 2 - magnitude))
    }

    /// A duration in nanoseconds: one decimal below 100 ns, whole nanoseconds above.
    static func nanoseconds(_ value: Double) -> String {
        fixed(value, decimals: value < 100 ? 1 : 0)
    }

    /// Allocations per operation: whole numbers as such, fractions with two decimals.
    static func allocations(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : fixed(value, decimals: 2)
    }

    /// A fraction as a whole percentage: `0.034` → `3%`.
    static func percent(_ fraction: Double) -> String {
        "\(Int((fraction * 100).rounded()))%"
    }

    private static func fixed(_ value: Double, decimals: Int) -> String {
        String(format: "%.\(decimals)f", locale: Locale(identifier: "en_US_POSIX"), value)
    }
}
