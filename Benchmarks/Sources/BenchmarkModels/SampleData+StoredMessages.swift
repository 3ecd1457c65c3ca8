extension SampleData {
    /// How many messages the storage benchmarks keep in a store: the 10,000 the performance targets
    /// are stated for, enough that reading them all is dominated by per-record work rather than by
    /// the fixed cost of a call.
    public static let storedMessageCount = 10_000

    /// `count` distinct messages, ``makeMessage(index:)`` for indexes `0..<count`: ids from 1000 up,
    /// and all dates different, so a query sorted by date has exactly one right answer.
    public static func messages(count: Int) -> [Message] {
        (0..<count).map(makeMessage(index:))
    }
}
