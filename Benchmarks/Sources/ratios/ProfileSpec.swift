import Foundation

/// What a profiling variable (`DAOKIT_COLD_PROFILE`, `DAOKIT_PERSIST_PROFILE`,
/// `DAOKIT_WARM_PROFILE`) asks for:
/// `<side>[:<n>[:<iterations>]]`, the side to run alone, on `n` messages (10,000 unless given),
/// `iterations` times.
struct ProfileSpec {
    let side: String
    let size: Int
    let iterations: Int

    /// `nil` when `spec` is malformed or names a side not in `sides`.
    init?(_ spec: String, sides: [String], defaultIterations: Int) {
        let parts = spec.split(separator: ":").map(String.init)
        guard let side = parts.first, sides.contains(side) else { return nil }
        guard let size = parts.count > 1 ? Int(parts[1]) : 10_000, size > 0,
            let iterations = parts.count > 2 ? Int(parts[2]) : defaultIterations, iterations >= 0
        else { return nil }
        (self.side, self.size, self.iterations) = (side, size, iterations)
    }
}

extension ProfileSpec {
    /// Runs `body` with what `spec`, the value of the profiling variable `variable`, asks for:
    /// its exit status, 64 (after printing the usage) for a malformed spec or a side not in
    /// `sides`, 1 (after printing the error) when `body` throws.
    static func run(
        _ spec: String, variable: String, sides: [String], defaultIterations: Int,
        _ body: (ProfileSpec) throws -> Int32
    ) -> Int32 {
        guard let parsed = ProfileSpec(spec, sides: sides, defaultIterations: defaultIterations) else {
            FileHandle.standardError.write(
                Data("usage: \(variable)=\(sides.joined(separator: "|"))[:<n>[:<iterations>]]\n".utf8))
            return 64
        }
        do {
            return try body(parsed)
        } catch {
            FileHandle.standardError.write(Data("\(variable): \(error)\n".utf8))
            return 1
        }
    }
}
