extension Duration {
    /// The duration in nanoseconds, as a `Double` for per-operation arithmetic.
    var nanoseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1e9 + Double(attoseconds) / 1e9
    }
}
