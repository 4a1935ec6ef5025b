#include "streamfusion/expression/function_registry.h"

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace streamfusion::expression {

const plan::Literal* FunctionCall::LiteralOperand(size_t i) const {
  if (i >= static_cast<size_t>(plan.operands_size())) return nullptr;
  const plan::Expr& e = plan.operands(static_cast<int>(i));
  return e.has_literal() ? &e.literal() : nullptr;
}

Result<std::string> FunctionCall::SymbolOperand(size_t i) const {
  const plan::Literal* literal = LiteralOperand(i);
  if (literal == nullptr || literal->value_case() != plan::Literal::kSymbolValue) {
    return InternalError(name, ": operand ", i, " is not a SYMBOL");
  }
  return literal->symbol_value();
}

Status FunctionCall::ExpectOperands(size_t min, size_t max) const {
  if (operands.size() < min || operands.size() > max) {
    if (min == max)
      return InternalError(name, " expects ", min, " operands, got ", operands.size());
    return InternalError(name, " expects ", min, " to ", max, " operands, got ", operands.size());
  }
  return Status::OK();
}

Status FunctionCall::Refuse(std::string_view why) const {
  std::ostringstream types;
  for (size_t i = 0; i < operands.size(); ++i) {
    types << (i > 0 ? ", " : "") << operands[i]->type().ToString();
  }
  return Unsupported(name, "(", types.str(), ") is not supported natively: ", why);
}

const FunctionRegistry& FunctionRegistry::Instance() {
  static const FunctionRegistry registry = [] {
    FunctionRegistry r;
    RegisterCoreFunctions(r);
    RegisterMathFunctions(r);
    RegisterRegexFunctions(r);
    RegisterCastFunctions(r);
    RegisterTemporalFunctions(r);
    RegisterUdfFunctions(r);
    RegisterStringFunctions(r);
    return r;
  }();
  return registry;
}

const FunctionSpec* FunctionRegistry::Find(std::string_view name) const {
  for (const auto& spec : functions_) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

void FunctionRegistry::Add(FunctionSpec spec) {
  if (Find(spec.name) != nullptr) {
    std::cerr << "streamfusion: function " << spec.name << " registered twice" << std::endl;
    std::abort();
  }
  functions_.push_back(std::move(spec));
}

Result<ExprPtr> CompileRegisteredCall(const plan::Call& call, const type::LogicalType& result,
                                      const CompileContext& ctx) {
  const FunctionSpec* spec = FunctionRegistry::Instance().Find(call.function());
  if (spec == nullptr)
    return Unsupported("Function ", call.function(), " is not supported natively");
  FunctionCall fc{call.function(), call, {}, result, ctx};
  fc.operands.reserve(static_cast<size_t>(call.operands_size()));
  for (const auto& operand : call.operands()) {
    SF_ASSIGN_OR_RAISE(auto compiled, Compile(operand, ctx));
    fc.operands.push_back(std::move(compiled));
  }
  return spec->factory(fc);
}

}  // namespace streamfusion::expression
