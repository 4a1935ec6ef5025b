#pragma once

// Errors inside the engine are arrow::Status / arrow::Result values. Their code tells the JNI
// boundary which kind of Java exception to raise:
//   * UserError   (arrow::StatusCode::Invalid)       — bad data or a query error Flink would also
//                                                       raise, e.g. "/ by zero"
//   * OutOfMemory (arrow::StatusCode::OutOfMemory)   — the native memory budget was exceeded
//   * Internal    (any other code)                   — a bug in StreamFusion
// Messages put runtime values at the end: "Division by zero in DIVIDE(INT, INT): 7 / 0".

#include <sstream>
#include <string>
#include <utility>

#include "arrow/result.h"
#include "arrow/status.h"

namespace streamfusion {

using arrow::Result;
using arrow::Status;

template <typename... Args>
Status UserError(Args&&... args) {
  return Status::Invalid(std::forward<Args>(args)...);
}

template <typename... Args>
Status InternalError(Args&&... args) {
  return Status::UnknownError(std::forward<Args>(args)...);
}

template <typename... Args>
Status Unsupported(Args&&... args) {
  return Status::NotImplemented(std::forward<Args>(args)...);
}

}  // namespace streamfusion

#define SF_RETURN_NOT_OK(expr) ARROW_RETURN_NOT_OK(expr)
#define SF_ASSIGN_OR_RAISE(lhs, rexpr) ARROW_ASSIGN_OR_RAISE(lhs, rexpr)

// Internal invariant checks that print both values: SF_CHECK_LT(a, b) returns an internal error.
#define SF_CHECK_OP(a, b, op)                                                            \
  do {                                                                                   \
    if (!((a)op(b))) {                                                                   \
      std::ostringstream sf_check_stream;                                                \
      sf_check_stream << "Check failed: " #a " " #op " " #b " (" << (a) << " vs " << (b) \
                      << ") at " << __FILE__ << ":" << __LINE__;                         \
      return ::streamfusion::InternalError(sf_check_stream.str());                       \
    }                                                                                    \
  } while (false)
#define SF_CHECK_EQ(a, b) SF_CHECK_OP(a, b, ==)
#define SF_CHECK_LT(a, b) SF_CHECK_OP(a, b, <)
#define SF_CHECK_LE(a, b) SF_CHECK_OP(a, b, <=)
