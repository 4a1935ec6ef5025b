#pragma once

// Factories of the compiled expression nodes, shared by the compiler (expression.cc) and the
// node implementations (arithmetic.cc, comparison.cc, cast.cc).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "streamfusion/expression/array_util.h"
#include "streamfusion/expression/expression.h"

namespace streamfusion::expression {

using ExprPtr = std::unique_ptr<Expression>;

// CAST(child AS to) with Flink 2.x cast rules; Unsupported for pairs outside the native set.
Result<ExprPtr> MakeCast(ExprPtr child, const type::LogicalType& to, arrow::MemoryPool* pool);

// CAST as planned in a session: pairs involving DATE, TIME, TIMESTAMP or TIMESTAMP_LTZ (other
// than identities) go to MakeTemporalCast, the rest to MakeCast.
Result<ExprPtr> MakeSessionCast(ExprPtr child, const type::LogicalType& to,
                                const CompileContext& ctx);

// TRY_CAST's row-wise NULL on failure for a cast that raises its errors for the whole batch:
// `make_cast` builds the cast over a stand-in operand; rows whose cast fails with a UserError
// become NULL, other rows keep their value (failing batches are re-cast in halves down to single
// rows). `to` is the (nullable) result type.
Result<ExprPtr> MakeNullOnFailure(ExprPtr child, const type::LogicalType& to,
                                  const std::function<Result<ExprPtr>(ExprPtr)>& make_cast,
                                  arrow::MemoryPool* pool);

// CAST from or to a temporal type, using the session time zone for TIMESTAMP_LTZ
// (temporal_cast.cc); Unsupported for pairs outside the native set. With `flink_errors`, a text
// the native parser refuses fails with Flink's own exception (asked of the JVM, jvm_calls.h);
// without (under TRY_CAST, which makes failures NULL) with the native parser's message.
Result<ExprPtr> MakeTemporalCast(ExprPtr child, const type::LogicalType& to,
                                 const CompileContext& ctx, bool flink_errors = true);

// PLUS MINUS TIMES DIVIDE MOD (two operands) and NEGATE (one operand), result type `result`.
Result<ExprPtr> MakeArithmetic(const std::string& function, std::vector<ExprPtr> operands,
                               const type::LogicalType& result, arrow::MemoryPool* pool);

// EQUALS NOT_EQUALS LESS_THAN LESS_THAN_OR_EQUAL GREATER_THAN GREATER_THAN_OR_EQUAL.
Result<ExprPtr> MakeComparison(const std::string& function, ExprPtr left, ExprPtr right,
                               const type::LogicalType& result, arrow::MemoryPool* pool);

bool IsComparison(const std::string& function);

// Whether `expression` is a non-NULL string literal every character of which is below U+D800.
// Flink's generated code holds literals as Java Strings, and BinaryStringData.compareTo orders
// two Java-held strings in UTF-16 order but any other pair by UTF-8 bytes; the two orders differ
// only where one side has a supplementary character and the other one in U+E000..U+FFFF at the
// first difference, so against such a literal a string compares the same either way.
bool IsOrderNeutralStringLiteral(const Expression& expression);

// A literal, or a value computed from literals only (see MakeConstant).
bool IsConstant(const Expression& expression);

// Wraps `expression`, computed from literals only and never failing, so that it is evaluated
// once per batch length instead of once per batch.
ExprPtr MakeConstant(ExprPtr expression);
bool IsArithmetic(const std::string& function);

inline type::LogicalType MakeType(type::TypeKind kind, bool nullable = true, int32_t precision = 0,
                                  int32_t scale = 0) {
  type::LogicalType t;
  t.kind = kind;
  t.nullable = nullable;
  t.precision = precision;
  t.scale = scale;
  return t;
}

}  // namespace streamfusion::expression
