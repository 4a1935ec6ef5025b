// Micro-benchmarks of the temporal functions and casts, each compiled through the registry as
// Flink's planner sends it and evaluated over batches of 4096 rows of TIMESTAMP(3) values spread
// over 2000-2030 (a tenth of them NULL). "items_per_second" is rows per second. Nexmark q1/q14
// use DATE_FORMAT(dateTime, 'yyyy-MM-dd HH:mm') and HOUR/EXTRACT(HOUR FROM dateTime).

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "arrow/api.h"
#include "benchmark/benchmark.h"
#include "streamfusion/expression/expression.h"
#include "streamfusion/expression/jvm_calls.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion {
namespace {

constexpr int64_t kRows = 4096;

plan::DataType Type(plan::DataType::Kind kind, int precision = 0, int length = 0) {
  plan::DataType t;
  t.set_kind(kind);
  t.set_nullable(true);
  t.set_precision(precision);
  t.set_length(length);
  return t;
}

plan::Expr Ref(int index, const plan::DataType& type) {
  plan::Expr e;
  *e.mutable_type() = type;
  e.set_input_ref(index);
  return e;
}

plan::Expr Call(const std::string& fn, const plan::DataType& type,
                std::vector<plan::Expr> operands) {
  plan::Expr e;
  *e.mutable_type() = type;
  e.mutable_call()->set_function(fn);
  for (auto& o : operands) *e.mutable_call()->add_operands() = std::move(o);
  return e;
}

plan::Expr Literal(const plan::DataType& type, const std::function<void(plan::Literal&)>& set) {
  plan::Expr e;
  *e.mutable_type() = type;
  *e.mutable_literal()->mutable_type() = type;
  set(*e.mutable_literal());
  return e;
}

plan::Expr Symbol(const std::string& name) {
  return Literal(Type(plan::DataType::SYMBOL), [&](plan::Literal& l) { l.set_symbol_value(name); });
}

plan::Expr String(const std::string& s) {
  return Literal(Type(plan::DataType::VARCHAR, 0, static_cast<int>(s.size())),
                 [&](plan::Literal& l) { l.set_string_value(s); });
}

// Input columns: ts TIMESTAMP(3), ltz TIMESTAMP_LTZ(3), dt DATE, s STRING (a timestamp text) and
// seq TIMESTAMP(3), 50 ms apart row after row (a stream's event times).
struct Input {
  type::RowType row_type;
  std::shared_ptr<arrow::RecordBatch> batch;
};

Input MakeInput() {
  Input in;
  const plan::DataType types[] = {
      Type(plan::DataType::TIMESTAMP, 3), Type(plan::DataType::TIMESTAMP_LTZ, 3),
      Type(plan::DataType::DATE), Type(plan::DataType::VARCHAR, 0, 1 << 30),
      Type(plan::DataType::TIMESTAMP, 3)};
  const char* names[] = {"ts", "ltz", "dt", "s", "seq"};
  for (int i = 0; i < 5; ++i) {
    in.row_type.push_back(type::Field{names[i], *type::FromProto(types[i])});
  }
  arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::MILLI),
                             arrow::default_memory_pool());
  arrow::TimestampBuilder ltz(arrow::timestamp(arrow::TimeUnit::MILLI),
                              arrow::default_memory_pool());
  arrow::Date32Builder dt;
  arrow::StringBuilder s;
  arrow::TimestampBuilder seq(arrow::timestamp(arrow::TimeUnit::MILLI),
                              arrow::default_memory_pool());
  arrow::Int8Builder kinds;
  uint64_t x = 42;
  for (int64_t i = 0; i < kRows; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const int64_t millis = 946684800000LL + static_cast<int64_t>((x >> 11) % 946684800000ULL);
    if (i % 10 == 3) {
      (void)ts.AppendNull();
      (void)ltz.AppendNull();
      (void)dt.AppendNull();
      (void)s.AppendNull();
    } else {
      (void)ts.Append(millis);
      (void)ltz.Append(millis);
      (void)dt.Append(static_cast<int32_t>(millis / 86400000));
      (void)s.Append("2024-02-29 12:30:15.123");
    }
    (void)seq.Append(1709209815123LL + i * 50);
    (void)kinds.Append(0);
  }
  std::vector<std::shared_ptr<arrow::Array>> columns(6);
  (void)ts.Finish(&columns[0]);
  (void)ltz.Finish(&columns[1]);
  (void)dt.Finish(&columns[2]);
  (void)s.Finish(&columns[3]);
  (void)seq.Finish(&columns[4]);
  (void)kinds.Finish(&columns[5]);
  in.batch = arrow::RecordBatch::Make(type::ToArrowSchema(in.row_type), kRows, columns);
  return in;
}

void Run(benchmark::State& state, const plan::Expr& expr, const std::string& zone = "UTC") {
  static const Input input = MakeInput();
  plan::SessionOptions session;
  session.set_local_time_zone(zone);
  expression::CompileContext ctx{input.row_type, session, arrow::default_memory_pool()};
  auto compiled = expression::Compile(expr, ctx);
  if (!compiled.ok()) {
    state.SkipWithError(compiled.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    auto result = (*compiled)->Evaluate(*input.batch, expression::Selection{});
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(result);
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

const plan::DataType kTs = Type(plan::DataType::TIMESTAMP, 3);
const plan::DataType kLtz = Type(plan::DataType::TIMESTAMP_LTZ, 3);
const plan::DataType kDate = Type(plan::DataType::DATE);
const plan::DataType kBigInt = Type(plan::DataType::BIGINT);
const plan::DataType kString = Type(plan::DataType::VARCHAR, 0, 1 << 30);

void BM_ExtractHour(benchmark::State& state) {
  Run(state, Call("EXTRACT", kBigInt, {Symbol("HOUR"), Ref(0, kTs)}));
}
void BM_ExtractYear(benchmark::State& state) {
  Run(state, Call("EXTRACT", kBigInt, {Symbol("YEAR"), Ref(0, kTs)}));
}
void BM_ExtractDayOfWeekOfDate(benchmark::State& state) {
  Run(state, Call("EXTRACT", kBigInt, {Symbol("DOW"), Ref(2, kDate)}));
}
void BM_ExtractHourLtzNewYork(benchmark::State& state) {
  Run(state, Call("EXTRACT", kBigInt, {Symbol("HOUR"), Ref(1, kLtz)}), "America/New_York");
}
void BM_DateFormatMinutes(benchmark::State& state) {
  Run(state, Call("DATE_FORMAT", kString, {Ref(0, kTs), String("yyyy-MM-dd HH:mm")}));
}
void BM_DateFormatMinutesInOrder(benchmark::State& state) {
  Run(state, Call("DATE_FORMAT", kString, {Ref(4, kTs), String("yyyy-MM-dd HH:mm")}));
}
void BM_DateFormatMillisInOrder(benchmark::State& state) {
  Run(state, Call("DATE_FORMAT", kString, {Ref(4, kTs), String("yyyy-MM-dd HH:mm:ss.SSS")}));
}
void BM_DateFormatLtzNewYork(benchmark::State& state) {
  Run(state, Call("DATE_FORMAT", kString, {Ref(1, kLtz), String("yyyy-MM-dd HH:mm:ss")}),
      "America/New_York");
}
void BM_FloorToHour(benchmark::State& state) {
  Run(state, Call("FLOOR_DATETIME", kTs, {Ref(0, kTs), Symbol("HOUR")}));
}
void BM_FloorToMonth(benchmark::State& state) {
  Run(state, Call("FLOOR_DATETIME", kTs, {Ref(0, kTs), Symbol("MONTH")}));
}
void BM_PlusOneMonth(benchmark::State& state) {
  Run(state, Call("DATETIME_PLUS", kTs,
                  {Ref(0, kTs), Literal(Type(plan::DataType::INTERVAL_YEAR_MONTH),
                                        [](plan::Literal& l) { l.set_int_value(1); })}));
}
void BM_CastTimestampToString(benchmark::State& state) {
  Run(state, Call("CAST", kString, {Ref(0, kTs)}));
}
void BM_CastStringToTimestamp(benchmark::State& state) {
  Run(state, Call("CAST", kTs, {Ref(3, kString)}));
}
void BM_CastTimestampToLtzNewYork(benchmark::State& state) {
  Run(state, Call("CAST", kLtz, {Ref(0, kTs)}), "America/New_York");
}
void BM_CastTimestampToDate(benchmark::State& state) {
  Run(state, Call("CAST", kDate, {Ref(0, kTs)}));
}
void BM_FromUnixtime(benchmark::State& state) {
  Run(state,
      Call("FROM_UNIXTIME", kString, {Call("EXTRACT", kBigInt, {Symbol("EPOCH"), Ref(0, kTs)})}));
}
// TO_TIMESTAMP(text, pattern) over the texts CAST(ts AS STRING) makes (compare with
// BM_CastTimestampToString alone); every text parses natively, none reaches the JVM.
Status NoJvm(std::string_view, const std::vector<std::string_view>&,
             std::vector<std::optional<int64_t>>*) {
  return Status::Invalid("no JVM in the benchmark");
}
void BM_ToTimestampWithPattern(benchmark::State& state) {
  expression::SetJvmParseTimestamps(&NoJvm);
  Run(state, Call("TO_TIMESTAMP", kTs,
                  {Call("CAST", kString, {Ref(0, kTs)}), String("yyyy-MM-dd HH:mm:ss.SSS")}));
  expression::SetJvmParseTimestamps(nullptr);
}

BENCHMARK(BM_ExtractHour);
BENCHMARK(BM_ExtractYear);
BENCHMARK(BM_ExtractDayOfWeekOfDate);
BENCHMARK(BM_ExtractHourLtzNewYork);
BENCHMARK(BM_DateFormatMinutes);
BENCHMARK(BM_DateFormatMinutesInOrder);
BENCHMARK(BM_DateFormatMillisInOrder);
BENCHMARK(BM_DateFormatLtzNewYork);
BENCHMARK(BM_FloorToHour);
BENCHMARK(BM_FloorToMonth);
BENCHMARK(BM_PlusOneMonth);
BENCHMARK(BM_CastTimestampToString);
BENCHMARK(BM_CastStringToTimestamp);
BENCHMARK(BM_CastTimestampToLtzNewYork);
BENCHMARK(BM_CastTimestampToDate);
BENCHMARK(BM_FromUnixtime);
BENCHMARK(BM_ToTimestampWithPattern);

}  // namespace
}  // namespace streamfusion
