#pragma once

// The native scalar function library. Every function the expression compiler accepts is
// registered here once, by its plan name (Flink's function name in upper case), with its SQL
// signature and a one-line doc. The planner sends calls by name; a name that is not registered,
// or operand types/options that a function's factory refuses, give an Unsupported status whose
// message becomes the fallback reason shown by EXPLAIN.
//
// Each area registers its functions from its own file (one Register*Functions per area, called
// from function_registry.cc).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "streamfusion/expression/nodes.h"

namespace streamfusion::expression {

// What a factory gets to build one call.
struct FunctionCall {
  const std::string& name;
  const plan::Call& plan;           // the call as planned (literal operands readable here)
  std::vector<ExprPtr> operands;    // compiled operands, in order (a SYMBOL compiles to NULL)
  const type::LogicalType& result;  // Flink's result type of the call
  const CompileContext& ctx;        // pool and session options (time zone)

  // Operand `i` when it is a literal (possibly NULL), else nullptr.
  const plan::Literal* LiteralOperand(size_t i) const;
  // The name of SYMBOL operand `i` (e.g. "YEAR", "BOTH"); InternalError when it is not one.
  Result<std::string> SymbolOperand(size_t i) const;
  // InternalError unless there are `min`..`max` operands.
  Status ExpectOperands(size_t min, size_t max) const;
  Status ExpectOperands(size_t count) const { return ExpectOperands(count, count); }
  // Unsupported("<NAME>(<operand types>) is not supported natively: <why>").
  Status Refuse(std::string_view why) const;
};

using FunctionFactory = Result<ExprPtr> (*)(FunctionCall& call);

struct FunctionSpec {
  std::string name;       // plan name, e.g. "LOWER"
  std::string signature;  // e.g. "LOWER(STRING) -> STRING"
  std::string doc;        // one line: what it computes, in Flink's terms
  FunctionFactory factory;
};

class FunctionRegistry {
 public:
  // The registry with every area's functions (built once, immutable afterwards).
  static const FunctionRegistry& Instance();

  const FunctionSpec* Find(std::string_view name) const;
  const std::vector<FunctionSpec>& functions() const { return functions_; }

  // Adds `spec`; a name registered twice is a programming error (aborts at start-up).
  void Add(FunctionSpec spec);

 private:
  std::vector<FunctionSpec> functions_;
};

// One per area, each defined in the area's own file.
void RegisterCoreFunctions(FunctionRegistry& registry);   // expression.cc
void RegisterMathFunctions(FunctionRegistry& registry);   // expression/builtins/math_functions.cc
void RegisterRegexFunctions(FunctionRegistry& registry);  // expression/builtins/regex_functions.cc
void RegisterCastFunctions(FunctionRegistry& registry);   // cast.cc
void RegisterTemporalFunctions(
    FunctionRegistry& registry);                        // expression/builtins/temporal_functions.cc
void RegisterUdfFunctions(FunctionRegistry& registry);  // udf_call.cc
void RegisterStringFunctions(
    FunctionRegistry& registry);  // expression/builtins/string_functions.cc

// Compiles a call through the registry (used by Compile).
Result<ExprPtr> CompileRegisteredCall(const plan::Call& call, const type::LogicalType& result,
                                      const CompileContext& ctx);

}  // namespace streamfusion::expression
