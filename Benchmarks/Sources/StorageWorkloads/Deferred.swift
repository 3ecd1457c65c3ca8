/// A value made the first time it is needed and kept afterwards, or the error making it threw.
///
/// It holds a store fixture, which is expensive to fill: workloads and tools only pay for the
/// fixtures they use. Not thread-safe; every benchmark tool here runs its workloads on one thread.
final class Deferred<Value> {
    private var made: Result<Value, any Error>?
    private let make: () throws -> Value

    init(_ make: @escaping () throws -> Value) {
        self.make = make
    }

    /// The value, made now if this is the first call.
    func get() throws -> Value {
        if let made { return try made.get() }
        let result = Result { try make() }
        made = result
        return try result.get()
    }

    /// Forgets the value (or error), releasing it; the next ``get()`` makes it again.
    func reset() {
        made = nil
    }

    /// The value if it has been made successfully, without making it.
    var ifMade: Value? {
        try? made?.get()
    }
}
