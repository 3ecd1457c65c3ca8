/// A deterministic random number generator (SplitMix64): the same seed gives the same sequence on
/// every run and platform, so a generated query that fails can be reproduced from its seed.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose sequence `seed` fixes.
    public init(seed: UInt64) {
        state = seed
    }

    /// The next number of the sequence.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniformly chosen element of `elements`.
    /// - Precondition: `elements` is not empty.
    public mutating func pick<C: Collection>(_ elements: C) -> C.Element {
        precondition(!elements.isEmpty, "pick from an empty collection")
        let offset = Int.random(in: 0..<elements.count, using: &self)
        return elements[elements.index(elements.startIndex, offsetBy: offset)]
    }

    /// `true` with probability `percent` / 100.
    public mutating func chance(_ percent: Int) -> Bool {
        Int.random(in: 0..<100, using: &self) < percent
    }
}
