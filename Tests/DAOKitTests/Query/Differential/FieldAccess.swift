import Foundation

/// How a predicate reads a property from its variable: `$0.score`, or `$0.place.zip` as the chain
/// of one-component key paths `#Predicate` builds (a `Predicate` refuses a key path with several
/// components).
struct FieldAccess<Domain, Value> {
    let build: (PredicateExpressions.Variable<Domain>) -> any StandardPredicateExpression<Value>

    /// `$0.<keyPath>`.
    static func path(_ keyPath: KeyPath<Domain, Value> & Sendable) -> FieldAccess {
        FieldAccess { PredicateExpressions.build_KeyPath(root: $0, keyPath: keyPath) }
    }

    /// `$0.<outer>.<inner>`.
    static func path<Middle>(_ outer: KeyPath<Domain, Middle> & Sendable, _ inner: KeyPath<Middle, Value> & Sendable)
        -> FieldAccess
    {
        FieldAccess { variable in
            PredicateExpressions.build_KeyPath(
                root: PredicateExpressions.build_KeyPath(root: variable, keyPath: outer), keyPath: inner)
        }
    }
}

/// The nodes generated conditions are made of. Each takes the field's expression as an opened
/// existential and returns the node erased, so that the node holds the concrete types a macro
/// would give it.
enum PredicateNodes {
    typealias PE = PredicateExpressions
    typealias Condition = any StandardPredicateExpression<Bool>

    static func compare<F: StandardPredicateExpression>(
        _ field: F, _ comparison: ConditionComparison, _ constant: F.Output,
        fieldFirst: Bool
    ) -> Condition
    where F.Output: Comparable & Codable & Sendable {
        fieldFirst ? comparison.build(field, PE.build_Arg(constant)) : comparison.build(PE.build_Arg(constant), field)
    }

    static func equal<F: StandardPredicateExpression>(_ field: F, _ constant: F.Output, negated: Bool, fieldFirst: Bool)
        -> Condition
    where F.Output: Equatable & Codable & Sendable {
        switch (negated, fieldFirst) {
        case (false, true): return PE.build_Equal(lhs: field, rhs: PE.build_Arg(constant))
        case (false, false): return PE.build_Equal(lhs: PE.build_Arg(constant), rhs: field)
        case (true, true): return PE.build_NotEqual(lhs: field, rhs: PE.build_Arg(constant))
        case (true, false): return PE.build_NotEqual(lhs: PE.build_Arg(constant), rhs: field)
        }
    }

    static func isNil<F: StandardPredicateExpression, Wrapped>(_ field: F, negated: Bool) -> Condition
    where F.Output == Wrapped?, Wrapped: Equatable {
        negated
            ? PE.build_NotEqual(lhs: field, rhs: PE.build_NilLiteral())
            : PE.build_Equal(lhs: field, rhs: PE.build_NilLiteral())
    }

    static func isIn<F: StandardPredicateExpression>(_ field: F, _ list: [F.Output]) -> Condition
    where F.Output: Equatable & Codable & Sendable {
        PE.build_contains(PE.build_Arg(list), field)
    }

    static func startsWith<F: StandardPredicateExpression<String>>(_ field: F, _ prefix: String) -> Condition {
        PE.build_starts(field, with: PE.build_Arg(prefix))
    }

    static func contains<F: StandardPredicateExpression<String>>(_ field: F, _ other: String) -> Condition {
        PE.build_contains(field, PE.build_Arg(other))
    }

    static func isTrue<F: StandardPredicateExpression<Bool>>(_ field: F) -> Condition { field }
}
