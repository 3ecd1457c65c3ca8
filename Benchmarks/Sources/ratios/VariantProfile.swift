import Foundation

/// Runs one variant of any section alone, for a profiler:
///
///     DAOKIT_VARIANT_PROFILE='<section>/<variant name>[:<iterations>]' ratios
///
/// for example `checksum/checksum.files.readAll checked:20`. The section is created and verified
/// first (so a wrong variant is not profiled), then the variant runs once untimed and `iterations`
/// times (10 unless given). Under `valgrind --tool=callgrind` the difference of two iteration
/// counts' totals over the difference of the counts is one operation's instructions, the set-up
/// excluded — the same for every variant, where the other profiling variables each serve a few.
enum VariantProfile {
    static let variable = "DAOKIT_VARIANT_PROFILE"

    /// Runs the variant `spec` names; returns the exit status: 64 for a malformed spec or an
    /// unknown section or variant (after listing the section's variants), 1 when the section does
    /// not verify or the variant throws.
    static func run(_ spec: String) -> Int32 {
        let (name, iterations) = parse(spec)
        let parts = name.split(separator: "/", maxSplits: 1).map(String.init)
        guard parts.count == 2, let iterations,
            let sectionType = RatioSections.all().first(where: { $0.id == parts[0] })
        else {
            printError("usage: \(variable)='<section>/<variant name>[:<iterations>]'")
            return 64
        }
        let section = sectionType.init()
        guard let variant = section.variants.first(where: { $0.name == parts[1] }) else {
            printError("\(variable): \(parts[0]) has no variant \(parts[1].debugDescription); it has:")
            section.variants.forEach { printError("  \($0.name)") }
            return 64
        }
        do {
            try section.verify()
            try variant.run(1)
            try variant.run(iterations)
            return 0
        } catch {
            printError("\(variable): \(error)")
            return 1
        }
    }

    /// The name and the iteration count of `spec` (`nil` when the count is not a whole number of
    /// at least 0); a variant name may itself hold colons, so only the last one is looked at.
    private static func parse(_ spec: String) -> (name: String, iterations: Int?) {
        guard let colon = spec.lastIndex(of: ":") else { return (spec, 10) }
        let count = Int(spec[spec.index(after: colon)...]).flatMap { $0 >= 0 ? $0 : nil }
        return (String(spec[..<colon]), count)
    }

    private static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
