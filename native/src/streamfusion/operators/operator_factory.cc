#include "streamfusion/operators/operator_factory.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <utility>

namespace streamfusion::operators {
namespace {

// Built on first use, so that the families' static initializers may run in any order.
std::map<plan::Operator::KindCase, OperatorFactory>& Factories() {
  static auto* factories = new std::map<plan::Operator::KindCase, OperatorFactory>();
  return *factories;
}

}  // namespace

bool OperatorRegistry::Register(plan::Operator::KindCase kind, OperatorFactory factory) {
  if (!Factories().emplace(kind, std::move(factory)).second) {
    std::fprintf(stderr, "StreamFusion: two factories for plan operator kind %d\n",
                 static_cast<int>(kind));
    std::abort();
  }
  return true;
}

const OperatorFactory* OperatorRegistry::Find(plan::Operator::KindCase kind) {
  auto it = Factories().find(kind);
  return it == Factories().end() ? nullptr : &it->second;
}

}  // namespace streamfusion::operators
