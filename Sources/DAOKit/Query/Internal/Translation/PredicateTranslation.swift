import Foundation

/// Translates a `Predicate<Domain>` into a ``StorageFilter`` on entity fields, as far as
/// `FieldProof` allows.
///
/// `Predicate.expression` is a tree of `PredicateExpressions` values; each kind this file knows
/// conforms to ``FilterTranslatable`` (a condition) or ``OperandTranslatable`` (a key path or a
/// constant), and the walk asks children through those conformances. Anything else — a kind not
/// listed, a key path not proven, a comparison between two fields — is untranslatable.
///
/// The result is exact (the filter holds exactly when the predicate does) or a superset (it holds
/// whenever the predicate does: an `&&` of which one side translated); ``BaseDao`` evaluates the
/// predicate itself on whatever a superset lets through.
struct PredicateTranslator {
    /// Which fields the key paths are proven to read.
    let keyPaths: any ProvenKeyPaths
    /// Whether operands are read for an ordering comparison: a key path then translates only to
    /// a field whose stored values are also ordered as the key path's values are (not so for an
    /// enum whose `<` is not its raw values' order).
    let ordered: Bool
    /// The predicate's own variable: key paths must start from it.
    let root: PredicateExpressions.VariableID

    /// The filter for `predicate`, or `nil` when nothing of it translates.
    static func translate<Domain>(_ predicate: Predicate<Domain>, keyPaths: any ProvenKeyPaths) -> TranslatedFilter? {
        let translator = PredicateTranslator(keyPaths: keyPaths, ordered: false, root: predicate.variable.key)
        return translator.filter(predicate.expression)
    }

    /// The field a key path is proven to read, if any (ordered, for an ordering comparison).
    func field(_ keyPath: AnyKeyPath) -> FieldPath? {
        ordered ? keyPaths.orderedField(for: keyPath) : keyPaths.field(for: keyPath)
    }

    func filter(_ expression: Any) -> TranslatedFilter? {
        (expression as? any FilterTranslatable)?.translate(with: self)
    }

    func operand(_ expression: Any) -> Operand? {
        (expression as? any OperandTranslatable)?.operand(with: self)
    }

    /// A comparison of two operands, if one is a proven field and the other a constant.
    func compare(_ lhs: Any, _ comparison: StorageComparison, _ rhs: Any) -> TranslatedFilter? {
        // An ordering comparison reads only fields stored in the order of their values.
        let reader =
            comparison == .equal || comparison == .notEqual
            ? self : PredicateTranslator(keyPaths: keyPaths, ordered: true, root: root)
        switch (reader.operand(lhs), reader.operand(rhs)) {
        case (.field(let field), .constant(let value)):
            return TranslatedFilter(.compare(field, comparison, value))
        case (.constant(let value), .field(let field)):
            return TranslatedFilter(.compare(field, comparison.swapped, value))
        default:
            return nil
        }
    }
}

/// Which stored field a key path reads, as far as that is proven: what a translation asks of
/// ``FieldProof``. A class, so that a translator holds one reference rather than a closure per
/// question (each closure a heap allocation, on every query).
protocol ProvenKeyPaths: AnyObject {
    /// The field `keyPath` reads, or `nil` when that is not proven.
    func field(for keyPath: AnyKeyPath) -> FieldPath?
    /// The field `keyPath` reads when the stored values are also ordered as the key path's values
    /// are (what an ordering comparison or a sort needs); `nil` otherwise.
    func orderedField(for keyPath: AnyKeyPath) -> FieldPath?
}

/// Proves no key path: every condition on a key path stays in Swift.
final class NoProvenKeyPaths: ProvenKeyPaths, Sendable {
    /// The one instance: it holds nothing.
    static let shared = NoProvenKeyPaths()

    func field(for keyPath: AnyKeyPath) -> FieldPath? { nil }
    func orderedField(for keyPath: AnyKeyPath) -> FieldPath? { nil }
}

/// A translated filter and whether it is exact or only a superset of the predicate.
struct TranslatedFilter {
    var filter: StorageFilter
    var isExact: Bool

    init(_ filter: StorageFilter, isExact: Bool = true) {
        self.filter = filter
        self.isExact = isExact
    }
}

/// One side of a comparison.
enum Operand {
    /// A proven field.
    case field(FieldPath)
    /// A constant, in the representation stored fields have.
    case constant(StorageValue)
    /// A list of constants (the sequence of `contains`).
    case constants([StorageValue])
    /// A constant range (`lower..<upper`, or `lower...upper` when `closed`), kept as its bounds
    /// rather than expanded: `(Int.min..<Int.max).contains($0.a)` has no list to make.
    case range(lower: StorageValue, upper: StorageValue, closed: Bool)
    /// A key path not (yet) known to be a field: a step of a chain.
    case keyPath(AnyKeyPath)
    /// The predicate's variable itself.
    case root
}

protocol FilterTranslatable {
    func translate(with translator: PredicateTranslator) -> TranslatedFilter?
}

protocol OperandTranslatable {
    func operand(with translator: PredicateTranslator) -> Operand?
}

// MARK: - Operands

extension PredicateExpressions.Variable: OperandTranslatable {
    func operand(with translator: PredicateTranslator) -> Operand? {
        key == translator.root ? .root : nil
    }
}

extension PredicateExpressions.KeyPath: OperandTranslatable {
    func operand(with translator: PredicateTranslator) -> Operand? {
        let path: AnyKeyPath
        switch translator.operand(root) {
        case .root: path = keyPath
        case .keyPath(let prefix):
            guard let appended = prefix.appending(path: keyPath) else { return nil }
            path = appended
        default: return nil
        }
        if let field = translator.field(path) { return .field(field) }
        return .keyPath(path)
    }
}

extension PredicateExpressions.KeyPath: FilterTranslatable {
    /// A `Bool` key path used as a condition: `#Predicate { $0.isRead }`.
    func translate(with translator: PredicateTranslator) -> TranslatedFilter? {
        guard Output.self == Bool.self, case .field(let field)? = operand(with: translator) else { return nil }
        return TranslatedFilter(.compare(field, .equal, .bool(true)))
    }
}

extension PredicateExpressions.Value: OperandTranslatable {
    func operand(with translator: PredicateTranslator) -> Operand? {
        if let encodable = value as? any Encodable, let scalar = StorageValue(encoding: encodable) {
            return .constant(scalar)
        }
        if let range = value as? any ConstantRange {
            guard let lower = StorageValue(encoding: range.lowerEncodable),
                let upper = StorageValue(encoding: range.upperEncodable)
            else { return nil }
            return .range(lower: lower, upper: upper, closed: range.isClosed)
        }
        guard let sequence = value as? any Sequence, let elements = AnySequenceOfAny(sequence) else { return nil }
        var values: [StorageValue] = []
        for element in elements {
            guard let encodable = element as? any Encodable, let scalar = StorageValue(encoding: encodable) else {
                return nil
            }
            values.append(scalar)
        }
        return .constants(values)
    }
}

extension PredicateExpressions.Value: FilterTranslatable {
    /// A constant condition: `#Predicate { true }`.
    func translate(with translator: PredicateTranslator) -> TranslatedFilter? {
        guard let bool = value as? Bool else { return nil }
        return TranslatedFilter(bool ? .and([]) : .or([]))
    }
}

extension PredicateExpressions.NilLiteral: OperandTranslatable {
    func operand(with translator: PredicateTranslator) -> Operand? { .constant(.null) }
}

/// A `Range` or `ClosedRange` of encodable bounds, read as its bounds.
private protocol ConstantRange {
    var lowerEncodable: any Encodable { get }
    var upperEncodable: any Encodable { get }
    var isClosed: Bool { get }
}

extension Range: ConstantRange where Bound: Encodable {
    var lowerEncodable: any Encodable { lowerBound }
    var upperEncodable: any Encodable { upperBound }
    var isClosed: Bool { false }
}

extension ClosedRange: ConstantRange where Bound: Encodable {
    var lowerEncodable: any Encodable { lowerBound }
    var upperEncodable: any Encodable { upperBound }
    var isClosed: Bool { true }
}

/// The elements of any sequence, as `Any`: opens the existential once. `nil` for a sequence of
/// more than ``limit`` elements (or an endless one): it is evaluated in Swift, never expanded.
private struct AnySequenceOfAny: Sequence {
    static let limit = 1_000_000
    let elements: [Any]
    init?(_ sequence: any Sequence) {
        // Iterates rather than `map`s: `map` asks for `underestimatedCount`, which traps for a
        // sequence whose count does not fit in an `Int`.
        func collect<S: Sequence>(_ sequence: S) -> [Any]? {
            var elements: [Any] = []
            var iterator = sequence.makeIterator()
            while let element = iterator.next() {
                if elements.count == Self.limit { return nil }
                elements.append(element)
            }
            return elements
        }
        guard let elements = collect(sequence) else { return nil }
        self.elements = elements
    }
    func makeIterator() -> IndexingIterator<[Any]> { elements.makeIterator() }
}

// MARK: - Conditions

extension PredicateExpressions.Equal: FilterTranslatable {
    func translate(with translator: PredicateTranslator) -> TranslatedFilter? {
        translator.compare(lhs, .equal, rhs)
    }
}

extension PredicateExpressions.NotEqual: FilterTranslatable {
    func translate(with translator: PredicateTranslator) -> TranslatedFilter? {
        translator.compare(lhs, .notEqual, rhs)
    }
}

extension PredicateExpressions.Comparison: FilterTranslatable {
    func translate(with translator: PredicateTranslator) -> TranslatedFilter? {
        let comparison: StorageComparison
        switch op {
        case .lessThan: comparison = .less
        case .lessThanOrEqual: comparison = .lessOrEqual
        case .greaterThan: comparison = .greater
        case .greaterThanOrEqual: comparison = .greaterOrEqual
        @unknown default: return nil
        }
        return translator.compare(lhs, comparison, rhs)
    }
}

extension PredicateExpressions.Conjunction: FilterTranslatable {
    /// Both sides, or the side that translates as a superset: `a && b` implies `a`.
    func translate(with translator: PredicateTranslator) -> TranslatedFilter? {
        switch (translator.filter(lhs), translator.filter(rhs)) {
        case (let left?, let right?):
            return TranslatedFilter(
                .and(Self.flatten(left.filter) + Self.flatten(right.filter)),
                isExact: left.isExact && right.isExact)
        case (let left?, nil):
            // Where the left side does not hold, `&&` never evaluates the right one: leaving those
            // values out cannot hide an error the right side would throw.
            return TranslatedFilter(left.filter, isExact: false)
        case (nil, let right?):
            // `&&` evaluates the left side on every value, so the values the right side leaves
            // out may only be skipped when the left side cannot throw (a `!`, a subscript can).
            guard ThrowCheck.cannotThrow(lhs) else { return nil }
            return TranslatedFilter(right.filter, isExact: false)
        case (nil, nil): return nil
        }
    }

    private static func flatten(_ filter: StorageFilter) -> [StorageFilter] {
        if case .and(let filters) = filter { return filters }
        return [filter]
    }
}

extension PredicateExpressions.Disjunction: FilterTranslatable {
    /// Both sides must translate; supersets of both make a superset of the whole.
    func translate(with translator: PredicateTranslator) -> TranslatedFilter? {
        guard let left = translator.filter(lhs), let right = translator.filter(rhs) else { return nil }
        return TranslatedFilter(.or([left.filter, right.filter]), isExact: left.isExact && right.isExact)
    }
}

extension PredicateExpressions.Negation: FilterTranslatable {
    /// Only an exact filter can be negated: the negation of a superset is no superset.
    func translate(with translator: PredicateTranslator) -> TranslatedFilter? {
        guard let inner = translator.filter(wrapped), inner.isExact else { return nil }
        return TranslatedFilter(.not(inner.filter))
    }
}

extension PredicateExpressions.SequenceContains: FilterTranslatable {
    /// `[a, b].contains($0.field)`.
    func translate(with translator: PredicateTranslator) -> TranslatedFilter? {
        guard case .field(let field)? = translator.operand(element) else { return nil }
        switch translator.operand(sequence) {
        case .constants(let values)?:
            return TranslatedFilter(.isIn(field, values))
        case .range(let lower, let upper, let closed)?:
            // `range.contains(x)` is `lower <= x && x < upper` (`<=` when closed).
            return TranslatedFilter(
                .and([
                    .compare(field, .greaterOrEqual, lower),
                    .compare(field, closed ? .lessOrEqual : .less, upper),
                ]))
        default:
            return nil
        }
    }
}

extension PredicateExpressions.SequenceStartsWith: FilterTranslatable {
    /// `$0.text.starts(with: "prefix")`.
    func translate(with translator: PredicateTranslator) -> TranslatedFilter? {
        guard case .field(let field)? = translator.operand(base),
            case .constant(.string(let prefix))? = translator.operand(self.prefix)
        else { return nil }
        return TranslatedFilter(.hasPrefix(field, prefix))
    }
}

extension PredicateExpressions.CollectionContainsCollection: FilterTranslatable {
    /// `$0.text.contains("part")`.
    func translate(with translator: PredicateTranslator) -> TranslatedFilter? {
        guard case .field(let field)? = translator.operand(base),
            case .constant(.string(let other))? = translator.operand(self.other)
        else { return nil }
        return TranslatedFilter(.contains(field, other))
    }
}

// MARK: - Throwing

/// Whether evaluating an expression can throw: `PredicateExpressions` such as a force unwrap or a
/// subscript throw on some values. Only the kinds listed here, whose children cannot throw
/// either, are known not to; anything else is assumed to throw.
enum ThrowCheck {
    static func cannotThrow(_ expression: Any) -> Bool {
        (expression as? any ThrowFree)?.cannotThrow ?? false
    }
}

protocol ThrowFree {
    var cannotThrow: Bool { get }
}

extension PredicateExpressions.Variable: ThrowFree { var cannotThrow: Bool { true } }
extension PredicateExpressions.Value: ThrowFree { var cannotThrow: Bool { true } }
extension PredicateExpressions.NilLiteral: ThrowFree { var cannotThrow: Bool { true } }
extension PredicateExpressions.KeyPath: ThrowFree { var cannotThrow: Bool { ThrowCheck.cannotThrow(root) } }
extension PredicateExpressions.Equal: ThrowFree {
    var cannotThrow: Bool { ThrowCheck.cannotThrow(lhs) && ThrowCheck.cannotThrow(rhs) }
}
extension PredicateExpressions.NotEqual: ThrowFree {
    var cannotThrow: Bool { ThrowCheck.cannotThrow(lhs) && ThrowCheck.cannotThrow(rhs) }
}
extension PredicateExpressions.Comparison: ThrowFree {
    var cannotThrow: Bool { ThrowCheck.cannotThrow(lhs) && ThrowCheck.cannotThrow(rhs) }
}
extension PredicateExpressions.Conjunction: ThrowFree {
    var cannotThrow: Bool { ThrowCheck.cannotThrow(lhs) && ThrowCheck.cannotThrow(rhs) }
}
extension PredicateExpressions.Disjunction: ThrowFree {
    var cannotThrow: Bool { ThrowCheck.cannotThrow(lhs) && ThrowCheck.cannotThrow(rhs) }
}
extension PredicateExpressions.Negation: ThrowFree { var cannotThrow: Bool { ThrowCheck.cannotThrow(wrapped) } }
extension PredicateExpressions.SequenceContains: ThrowFree {
    var cannotThrow: Bool { ThrowCheck.cannotThrow(sequence) && ThrowCheck.cannotThrow(element) }
}
extension PredicateExpressions.SequenceStartsWith: ThrowFree {
    var cannotThrow: Bool { ThrowCheck.cannotThrow(base) && ThrowCheck.cannotThrow(prefix) }
}
extension PredicateExpressions.CollectionContainsCollection: ThrowFree {
    var cannotThrow: Bool { ThrowCheck.cannotThrow(base) && ThrowCheck.cannotThrow(other) }
}
extension PredicateExpressions.OptionalFlatMap: ThrowFree {
    var cannotThrow: Bool { ThrowCheck.cannotThrow(wrapped) && ThrowCheck.cannotThrow(transform) }
}
extension PredicateExpressions.NilCoalesce: ThrowFree {
    var cannotThrow: Bool { ThrowCheck.cannotThrow(lhs) && ThrowCheck.cannotThrow(rhs) }
}
