import Foundation

/// One property of a domain type that generated predicates test: given a random source, it
/// writes one condition on the property, in one of the shapes that property supports.
///
/// The shapes cover what `#Predicate` users write and what the translation must get right or
/// leave alone: every comparison both ways round (`$0.x < 3` and `3 < $0.x`), `!=`, membership
/// in a literal list, string prefix and substring, `nil` checks, and optional chaining.
struct QueryField<Domain> {
    /// The property as the condition's source writes it, such as `score` or `place?.zip`.
    let name: String
    /// A random condition on the property.
    let condition: (inout SeededGenerator) -> GeneratedPredicate<Domain>
}

private typealias PE = PredicateExpressions
private typealias Nodes = PredicateNodes

extension QueryField {
    /// Comparisons (all six, either operand first) and list membership with constants from `pool`.
    static func comparable<V: Comparable & Codable & Sendable>(
        _ name: String, _ access: FieldAccess<Domain, V>, pool: [V], show: @escaping (V) -> String = { "\($0)" }
    ) -> QueryField {
        QueryField(name: name) { random in
            let constant = random.pick(pool)
            let text = show(constant)
            let field = "$0.\(name)"
            let shape = Int.random(in: 0..<14, using: &random)
            if shape < 12 {
                let comparison = ConditionComparison.allCases[shape % 6]
                let fieldFirst = shape < 6
                let source =
                    fieldFirst ? "\(field) \(comparison.rawValue) \(text)" : "\(text) \(comparison.rawValue) \(field)"
                return GeneratedPredicate(source: source) { variable in
                    Nodes.compare(access.build(variable), comparison, constant, fieldFirst: fieldFirst)
                }
            }
            return isIn(name, access, pool: pool, show: show, random: &random)
        }
    }

    /// A comparable property read through a key path.
    static func comparable<V: Comparable & Codable & Sendable>(
        _ name: String, _ keyPath: KeyPath<Domain, V> & Sendable, pool: [V], show: @escaping (V) -> String = { "\($0)" }
    ) -> QueryField {
        comparable(name, .path(keyPath), pool: pool, show: show)
    }

    /// `==`, `!=` (either operand first) and list membership, for values that are not `Comparable`.
    static func equatable<V: Equatable & Codable & Sendable>(
        _ name: String, _ access: FieldAccess<Domain, V>, pool: [V], show: @escaping (V) -> String = { "\($0)" }
    ) -> QueryField {
        QueryField(name: name) { random in
            let constant = random.pick(pool)
            let text = show(constant)
            let field = "$0.\(name)"
            let shape = Int.random(in: 0..<5, using: &random)
            if shape < 4 {
                let negated = shape >= 2
                let fieldFirst = shape % 2 == 0
                let op = negated ? "!=" : "=="
                let source = fieldFirst ? "\(field) \(op) \(text)" : "\(text) \(op) \(field)"
                return GeneratedPredicate(source: source) { variable in
                    Nodes.equal(access.build(variable), constant, negated: negated, fieldFirst: fieldFirst)
                }
            }
            return isIn(name, access, pool: pool, show: show, random: &random)
        }
    }

    /// An equatable property read through a key path.
    static func equatable<V: Equatable & Codable & Sendable>(
        _ name: String, _ keyPath: KeyPath<Domain, V> & Sendable, pool: [V], show: @escaping (V) -> String = { "\($0)" }
    ) -> QueryField {
        equatable(name, .path(keyPath), pool: pool, show: show)
    }

    /// `[a, b].contains($0.field)` with one to three constants from `pool`.
    private static func isIn<V: Equatable & Codable & Sendable>(
        _ name: String, _ access: FieldAccess<Domain, V>, pool: [V], show: (V) -> String, random: inout SeededGenerator
    ) -> GeneratedPredicate<Domain> {
        let list = (0..<Int.random(in: 1...3, using: &random)).map { _ in random.pick(pool) }
        return GeneratedPredicate(source: "[\(list.map(show).joined(separator: ", "))].contains($0.\(name))") {
            variable in
            Nodes.isIn(access.build(variable), list)
        }
    }

    /// A `Bool` property used as the condition itself (`$0.flag`), or compared with a constant.
    static func flag(_ name: String, _ keyPath: KeyPath<Domain, Bool> & Sendable) -> QueryField {
        let comparisons = equatable(name, keyPath, pool: [false, true])
        return QueryField(name: name) { random in
            if random.chance(40) {
                return GeneratedPredicate(source: "$0.\(name)") { variable in
                    PE.build_KeyPath(root: variable, keyPath: keyPath)
                }
            }
            return comparisons.condition(&random)
        }
    }

    /// A `String` property: comparisons and membership, plus `starts(with:)` and `contains(_:)`
    /// with fragments from `fragments`.
    static func text(_ name: String, _ access: FieldAccess<Domain, String>, pool: [String], fragments: [String])
        -> QueryField
    {
        let comparisons = comparable(name, access, pool: pool, show: { $0.debugDescription })
        return QueryField(name: name) { random in
            let fragment = random.pick(fragments)
            switch Int.random(in: 0..<5, using: &random) {
            case 0:
                return GeneratedPredicate(source: "$0.\(name).starts(with: \(fragment.debugDescription))") { variable in
                    Nodes.startsWith(access.build(variable), fragment)
                }
            case 1:
                return GeneratedPredicate(source: "$0.\(name).contains(\(fragment.debugDescription))") { variable in
                    Nodes.contains(access.build(variable), fragment)
                }
            default:
                return comparisons.condition(&random)
            }
        }
    }

    /// A `String` property read through a key path.
    static func text(_ name: String, _ keyPath: KeyPath<Domain, String> & Sendable, pool: [String], fragments: [String])
        -> QueryField
    {
        text(name, .path(keyPath), pool: pool, fragments: fragments)
    }

    /// An optional property: `== nil`, `!= nil`, and `==` / `!=` / membership with constants.
    static func optional<V: Equatable & Codable & Sendable>(
        _ name: String, _ keyPath: KeyPath<Domain, V?> & Sendable, pool: [V],
        show: @escaping (V) -> String = { "\($0)" }
    ) -> QueryField {
        let values = equatable(name, keyPath, pool: pool.map(Optional.some) + [nil], show: { $0.map(show) ?? "nil" })
        return QueryField(name: name) { random in
            let shape = Int.random(in: 0..<4, using: &random)
            if shape < 2 {
                let negated = shape == 1
                return GeneratedPredicate(source: "$0.\(name) \(negated ? "!=" : "==") nil") { variable in
                    Nodes.isNil(PE.build_KeyPath(root: variable, keyPath: keyPath), negated: negated)
                }
            }
            return values.condition(&random)
        }
    }

    /// A property reached by optional chaining, `$0.outer?.inner`: compared with constants and `nil`.
    static func chained<Wrapped, V: Equatable & Codable & Sendable>(
        _ outer: String, _ outerPath: KeyPath<Domain, Wrapped?> & Sendable,
        _ inner: String, _ innerPath: KeyPath<Wrapped, V> & Sendable,
        pool: [V], show: @escaping (V) -> String = { "\($0)" }
    ) -> QueryField {
        QueryField(name: "\(outer)?.\(inner)") { random in
            let constant: V? = random.chance(25) ? nil : random.pick(pool)
            let negated = random.chance(40)
            let source = "$0.\(outer)?.\(inner) \(negated ? "!=" : "==") \(constant.map(show) ?? "nil")"
            return GeneratedPredicate(source: source) { variable in
                let chain = PE.build_flatMap(PE.build_KeyPath(root: variable, keyPath: outerPath)) { wrapped in
                    PE.build_KeyPath(root: wrapped, keyPath: innerPath)
                }
                return Nodes.equal(chain, constant, negated: negated, fieldFirst: true)
            }
        }
    }
}

/// The comparison operators, with the node each builds.
enum ConditionComparison: String, CaseIterable {
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="

    func build<L: StandardPredicateExpression, R: StandardPredicateExpression>(_ lhs: L, _ rhs: R)
        -> any StandardPredicateExpression<Bool>
    where L.Output == R.Output, L.Output: Comparable {
        switch self {
        case .equal: return PE.build_Equal(lhs: lhs, rhs: rhs)
        case .notEqual: return PE.build_NotEqual(lhs: lhs, rhs: rhs)
        case .less: return PE.build_Comparison(lhs: lhs, rhs: rhs, op: .lessThan)
        case .lessOrEqual: return PE.build_Comparison(lhs: lhs, rhs: rhs, op: .lessThanOrEqual)
        case .greater: return PE.build_Comparison(lhs: lhs, rhs: rhs, op: .greaterThan)
        case .greaterOrEqual: return PE.build_Comparison(lhs: lhs, rhs: rhs, op: .greaterThanOrEqual)
        }
    }
}
