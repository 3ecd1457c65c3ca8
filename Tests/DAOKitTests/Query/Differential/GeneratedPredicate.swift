import Foundation

/// A predicate built at run time from `PredicateExpressions` nodes, with the Swift source it
/// stands for: what the differential tests generate, combine and print when a case fails.
///
/// `#Predicate` can only write predicates fixed at compile time; building the same expression
/// trees through the `build_` functions the macro expands to lets a seeded generator combine
/// conditions with `&&`, `||` and `!` freely, and BaseDao sees exactly the node types a macro
/// would give it.
struct GeneratedPredicate<Domain> {
    /// The condition as it would be written in `#Predicate { … }`, with `$0` for the value.
    let source: String
    /// Builds the expression for the predicate's variable.
    let build: (PredicateExpressions.Variable<Domain>) -> any StandardPredicateExpression<Bool>

    /// The predicate.
    var predicate: Predicate<Domain> { Predicate(build) }

    /// `lhs && rhs`.
    static func && (lhs: Self, rhs: Self) -> Self {
        GeneratedPredicate(source: "(\(lhs.source) && \(rhs.source))") { variable in
            conjunction(lhs.build(variable), rhs.build(variable))
        }
    }

    /// `lhs || rhs`.
    static func || (lhs: Self, rhs: Self) -> Self {
        GeneratedPredicate(source: "(\(lhs.source) || \(rhs.source))") { variable in
            disjunction(lhs.build(variable), rhs.build(variable))
        }
    }

    /// `!operand`.
    static prefix func ! (operand: Self) -> Self {
        GeneratedPredicate(source: "!\(operand.source)") { variable in negation(operand.build(variable)) }
    }
}

// The combinators open the existential children so that the node gets their concrete types, as
// it would from the macro.

private func conjunction<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(
    _ lhs: L, _ rhs: R
) -> any StandardPredicateExpression<Bool> {
    PredicateExpressions.build_Conjunction(lhs: lhs, rhs: rhs)
}

private func disjunction<L: StandardPredicateExpression<Bool>, R: StandardPredicateExpression<Bool>>(
    _ lhs: L, _ rhs: R
) -> any StandardPredicateExpression<Bool> {
    PredicateExpressions.build_Disjunction(lhs: lhs, rhs: rhs)
}

private func negation<W: StandardPredicateExpression<Bool>>(_ wrapped: W) -> any StandardPredicateExpression<Bool> {
    PredicateExpressions.build_Negation(wrapped)
}
