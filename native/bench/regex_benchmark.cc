// Micro-benchmarks of the pattern-matching functions (expression/builtins/regex_functions.cc), each
// compiled once through the function registry and evaluated over batches of 4096 Nexmark-like
// URL strings (about 70 bytes, a channel_id parameter in a quarter of them, every 16th with a
// non-ASCII character). "items_per_second" inverts to ns per row.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/api.h"
#include "benchmark/benchmark.h"
#include "streamfusion/expression/expression.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion {
namespace {

constexpr int64_t kBatchRows = 4096;

plan::DataType Type(plan::DataType::Kind kind) {
  plan::DataType t;
  t.set_kind(kind);
  t.set_nullable(true);
  if (kind == plan::DataType::VARCHAR) t.set_length(2147483647);
  return t;
}

plan::Expr Column() {
  plan::Expr e;
  *e.mutable_type() = Type(plan::DataType::VARCHAR);
  e.set_input_ref(0);
  return e;
}

plan::Expr StringLiteral(const std::string& value) {
  plan::Expr e;
  *e.mutable_type() = Type(plan::DataType::VARCHAR);
  *e.mutable_literal()->mutable_type() = e.type();
  e.mutable_literal()->set_string_value(value);
  return e;
}

plan::Expr IntLiteral(int64_t value) {
  plan::Expr e;
  *e.mutable_type() = Type(plan::DataType::INT);
  *e.mutable_literal()->mutable_type() = e.type();
  e.mutable_literal()->set_int_value(value);
  return e;
}

plan::Expr Call(const std::string& fn, plan::DataType::Kind result, std::vector<plan::Expr> args) {
  plan::Expr e;
  *e.mutable_type() = Type(result);
  e.mutable_call()->set_function(fn);
  for (auto& a : args) *e.mutable_call()->add_operands() = std::move(a);
  return e;
}

std::shared_ptr<arrow::RecordBatch> UrlBatch() {
  arrow::StringBuilder urls;
  arrow::Int8Builder kinds;
  for (int64_t i = 0; i < kBatchRows; ++i) {
    std::string url = "https://www.nexmark.com/" + std::to_string(i % 97) +
                      "/item.htm?query=" + std::to_string(i * 7919 % 100000);
    if (i % 4 == 0) url += "&channel_id=" + std::to_string(i % 1000);
    if (i % 16 == 1) url += "&q=h\xc3\xa9llo";
    (void)urls.Append(url);
    (void)kinds.Append(0);
  }
  std::shared_ptr<arrow::Array> url_array, kind_array;
  (void)urls.Finish(&url_array);
  (void)kinds.Finish(&kind_array);
  type::RowType row_type{type::Field{"url", *type::FromProto(Type(plan::DataType::VARCHAR))}};
  return arrow::RecordBatch::Make(type::ToArrowSchema(row_type), kBatchRows,
                                  {url_array, kind_array});
}

void Run(benchmark::State& state, const plan::Expr& expr) {
  const auto batch = UrlBatch();
  type::RowType row_type{type::Field{"url", *type::FromProto(Type(plan::DataType::VARCHAR))}};
  plan::SessionOptions session;
  expression::CompileContext ctx{row_type, session, arrow::default_memory_pool()};
  auto compiled = expression::Compile(expr, ctx);
  if (!compiled.ok()) {
    state.SkipWithError(compiled.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    auto result = (*compiled)->Evaluate(*batch, expression::Selection{});
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(result->get());
  }
  state.SetItemsProcessed(state.iterations() * kBatchRows);
}

void BM_LikeContains(benchmark::State& state) {
  Run(state, Call("LIKE", plan::DataType::BOOLEAN, {Column(), StringLiteral("%channel%")}));
}
void BM_LikeChain(benchmark::State& state) {
  Run(state, Call("LIKE", plan::DataType::BOOLEAN, {Column(), StringLiteral("https:%item%=1%")}));
}
void BM_LikeRegexPath(benchmark::State& state) {
  Run(state, Call("LIKE", plan::DataType::BOOLEAN, {Column(), StringLiteral("%channel_id=1_%")}));
}
void BM_SimilarTo(benchmark::State& state) {
  Run(state, Call("SIMILAR_TO", plan::DataType::BOOLEAN,
                  {Column(), StringLiteral("https://%(channel|query)=[0-9]+%")}));
}
void BM_Regexp(benchmark::State& state) {
  Run(state, Call("REGEXP", plan::DataType::BOOLEAN, {Column(), StringLiteral("channel_id=\\d+")}));
}
// Nexmark q21's REGEXP_EXTRACT(url, '(&|^)channel_id=([^&]*)', 2).
void BM_RegexpExtractQ21(benchmark::State& state) {
  Run(state, Call("REGEXP_EXTRACT", plan::DataType::VARCHAR,
                  {Column(), StringLiteral("(&|^)channel_id=([^&]*)"), IntLiteral(2)}));
}
void BM_RegexpReplace(benchmark::State& state) {
  Run(state, Call("REGEXP_REPLACE", plan::DataType::VARCHAR,
                  {Column(), StringLiteral("[0-9]+"), StringLiteral("#")}));
}
void BM_RegexpCount(benchmark::State& state) {
  Run(state, Call("REGEXP_COUNT", plan::DataType::INT, {Column(), StringLiteral("[a-z]+")}));
}
void BM_RegexpInstr(benchmark::State& state) {
  Run(state, Call("REGEXP_INSTR", plan::DataType::INT, {Column(), StringLiteral("\\?")}));
}
void BM_RegexpSubstr(benchmark::State& state) {
  Run(state, Call("REGEXP_SUBSTR", plan::DataType::VARCHAR, {Column(), StringLiteral("\\d+")}));
}

BENCHMARK(BM_LikeContains);
BENCHMARK(BM_LikeChain);
BENCHMARK(BM_LikeRegexPath);
BENCHMARK(BM_SimilarTo);
BENCHMARK(BM_Regexp);
BENCHMARK(BM_RegexpExtractQ21);
BENCHMARK(BM_RegexpReplace);
BENCHMARK(BM_RegexpCount);
BENCHMARK(BM_RegexpInstr);
BENCHMARK(BM_RegexpSubstr);

}  // namespace
}  // namespace streamfusion
