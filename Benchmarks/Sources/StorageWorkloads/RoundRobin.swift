/// Hands out the positions `0..<count` in turn, wrapping around.
///
/// Single-record workloads (persist one, read one) go through every stored record this way rather
/// than hitting one record again and again, which would keep exactly one record hot in every cache
/// and, for files, rewrite one inode only.
struct RoundRobin {
    private let count: Int
    private var position = 0

    init(count: Int) {
        precondition(count > 0, "RoundRobin needs at least one position")
        self.count = count
    }

    mutating func next() -> Int {
        defer {
            position += 1
            if position == count { position = 0 }
        }
        return position
    }
}
