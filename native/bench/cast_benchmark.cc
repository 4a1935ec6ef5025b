// Micro-benchmarks of the CASTs of the cast area on batches of 4096 rows: FLOAT/DOUBLE to STRING
// (both Java algorithms), DOUBLE to DECIMAL, TRY_CAST of strings with and without failing rows,
// BINARY(n) padding, BINARY to STRING. items = rows.

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "arrow/api.h"
#include "benchmark/benchmark.h"
#include "streamfusion/expression/expression.h"
#include "streamfusion/plan.pb.h"

namespace streamfusion {
namespace {

constexpr int64_t kRows = 4096;

plan::DataType CastType(plan::DataType::Kind kind, int precision = 0, int scale = 0,
                        int length = 0) {
  plan::DataType t;
  t.set_kind(kind);
  t.set_nullable(true);
  t.set_precision(precision);
  t.set_scale(scale);
  t.set_length(length);
  return t;
}

// Runs `function`(column 0 AS to) over `column` with a session of `java_version`.
void RunCast(benchmark::State& state, const std::string& function, const plan::DataType& from,
             const plan::DataType& to, std::shared_ptr<arrow::Array> column, int java_version) {
  type::RowType row_type{type::Field{"c0", *type::FromProto(from)}};
  auto schema = arrow::schema({arrow::field("c0", column->type())});
  auto batch = arrow::RecordBatch::Make(schema, kRows, {column});
  plan::Expr ref;
  *ref.mutable_type() = from;
  ref.set_input_ref(0);
  plan::Expr call;
  *call.mutable_type() = to;
  call.mutable_call()->set_function(function);
  *call.mutable_call()->add_operands() = ref;
  plan::SessionOptions session;
  session.set_local_time_zone("UTC");
  session.set_java_feature_version(java_version);
  expression::CompileContext ctx{row_type, session, arrow::default_memory_pool()};
  auto compiled = expression::Compile(call, ctx);
  if (!compiled.ok()) {
    state.SkipWithError(compiled.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    auto out = (*compiled)->Evaluate(*batch, expression::Selection{});
    if (!out.ok()) {
      state.SkipWithError(out.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

std::shared_ptr<arrow::Array> RandomDoubles(bool small) {
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> mantissa(1.0, 10.0);
  std::uniform_int_distribution<int> exponent(small ? -2 : -300, small ? 6 : 300);
  arrow::DoubleBuilder b;
  for (int64_t i = 0; i < kRows; ++i) {
    (void)b.Append(mantissa(rng) * std::pow(10.0, exponent(rng)));
  }
  return *b.Finish();
}

std::shared_ptr<arrow::Array> RandomFloats() {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> v(-1000.0f, 1000.0f);
  arrow::FloatBuilder b;
  for (int64_t i = 0; i < kRows; ++i) (void)b.Append(v(rng));
  return *b.Finish();
}

std::shared_ptr<arrow::Array> NumericStrings(int failing_every) {
  arrow::StringBuilder b;
  for (int64_t i = 0; i < kRows; ++i) {
    if (failing_every > 0 && i % failing_every == 0) {
      (void)b.Append("x" + std::to_string(i));
    } else {
      (void)b.Append(std::to_string(i * 7919 % 100000));
    }
  }
  return *b.Finish();
}

const plan::DataType kDouble = CastType(plan::DataType::DOUBLE);
const plan::DataType kString = CastType(plan::DataType::VARCHAR, 0, 0, 2147483647);

void BM_DoubleToStringJdk17(benchmark::State& s) {
  RunCast(s, "CAST", kDouble, kString, RandomDoubles(false), 17);
}
void BM_DoubleToStringJdk17Plain(benchmark::State& s) {
  RunCast(s, "CAST", kDouble, kString, RandomDoubles(true), 17);
}
void BM_DoubleToStringJdk25(benchmark::State& s) {
  RunCast(s, "CAST", kDouble, kString, RandomDoubles(false), 25);
}
void BM_FloatToStringJdk17(benchmark::State& s) {
  RunCast(s, "CAST", CastType(plan::DataType::FLOAT), kString, RandomFloats(), 17);
}
void BM_DoubleToDecimalJdk17(benchmark::State& s) {
  RunCast(s, "CAST", kDouble, CastType(plan::DataType::DECIMAL, 38, 10), RandomDoubles(true), 17);
}
void BM_TryCastStringToIntAllValid(benchmark::State& s) {
  RunCast(s, "TRY_CAST", kString, CastType(plan::DataType::INT), NumericStrings(0), 17);
}
void BM_TryCastStringToIntOneInHundredFails(benchmark::State& s) {
  RunCast(s, "TRY_CAST", kString, CastType(plan::DataType::INT), NumericStrings(100), 17);
}
void BM_StringToBinary8(benchmark::State& s) {
  RunCast(s, "CAST", kString, CastType(plan::DataType::BINARY, 0, 0, 8), NumericStrings(0), 17);
}

void BM_BinaryToString(benchmark::State& s) {
  // Mostly valid UTF-8 with a malformed byte every 64 rows.
  arrow::BinaryBuilder b;
  for (int64_t i = 0; i < kRows; ++i) {
    std::string v = "value-\xC3\xA9-" + std::to_string(i);
    if (i % 64 == 0) v.push_back('\xFF');
    (void)b.Append(v);
  }
  RunCast(s, "CAST", CastType(plan::DataType::VARBINARY, 0, 0, 2147483647), kString, *b.Finish(),
          17);
}

BENCHMARK(BM_DoubleToStringJdk17);
BENCHMARK(BM_DoubleToStringJdk17Plain);
BENCHMARK(BM_DoubleToStringJdk25);
BENCHMARK(BM_FloatToStringJdk17);
BENCHMARK(BM_DoubleToDecimalJdk17);
BENCHMARK(BM_TryCastStringToIntAllValid);
BENCHMARK(BM_TryCastStringToIntOneInHundredFails);
BENCHMARK(BM_StringToBinary8);
BENCHMARK(BM_BinaryToString);

}  // namespace
}  // namespace streamfusion
