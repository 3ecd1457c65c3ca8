import Foundation

/// What an observation compares to decide whether a re-run changed its result: the result encoded
/// as JSON with sorted keys.
///
/// `Domain` need not be `Equatable`, but it is `Encodable`, and two results that encode to the same
/// JSON hold the same values in the same order — which is what a screen shows. So an equal
/// re-run delivers nothing. The comparison errs only towards delivering: a result JSON cannot
/// encode (a `Double.nan`) has no fingerprint and always counts as changed, and a `Set` or
/// `Dictionary` with non-string keys may encode equal contents in another order, delivering an
/// equal result once more.
struct ResultFingerprint: Equatable, Sendable {
    private let json: Data

    /// The fingerprint of `value`, or `nil` when JSON cannot encode it.
    init?(_ value: some Encodable) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let json = try? encoder.encode(value) else { return nil }
        self.json = json
    }
}
