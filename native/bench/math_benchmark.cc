// Micro-benchmarks of the native math functions and IF: one compiled expression evaluated over
// a 4096-row batch per iteration (every 16th row NULL). items = rows, so "items_per_second"
// inverts to ns per row.

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

constexpr int64_t kRows = 4096;

plan::DataType MathType(plan::DataType::Kind kind, int precision = 0, int scale = 0) {
  plan::DataType t;
  t.set_kind(kind);
  t.set_nullable(true);
  t.set_precision(precision);
  t.set_scale(scale);
  if (kind == plan::DataType::VARCHAR) t.set_length(2147483647);
  return t;
}

plan::Expr MathRef(int index, const plan::DataType& type) {
  plan::Expr e;
  *e.mutable_type() = type;
  e.set_input_ref(index);
  return e;
}

plan::Expr MathCall(const std::string& fn, const plan::DataType& type,
                    std::vector<plan::Expr> operands) {
  plan::Expr e;
  *e.mutable_type() = type;
  e.mutable_call()->set_function(fn);
  for (auto& o : operands) *e.mutable_call()->add_operands() = std::move(o);
  return e;
}

plan::Expr MathIntLit(int64_t v) {
  plan::Expr e;
  *e.mutable_type() = MathType(plan::DataType::INT);
  *e.mutable_literal()->mutable_type() = e.type();
  e.mutable_literal()->set_int_value(v);
  return e;
}

plan::Expr MathDoubleLit(double v) {
  plan::Expr e;
  *e.mutable_type() = MathType(plan::DataType::DOUBLE);
  *e.mutable_literal()->mutable_type() = e.type();
  e.mutable_literal()->set_double_value(v);
  return e;
}

// Columns: 0 i64 BIGINT, 1 f64 DOUBLE, 2 d10 DECIMAL(10, 2), 3 d38 DECIMAL(38, 10), 4 b BOOLEAN.
const plan::DataType kI64 = MathType(plan::DataType::BIGINT);
const plan::DataType kF64 = MathType(plan::DataType::DOUBLE);
const plan::DataType kD10 = MathType(plan::DataType::DECIMAL, 10, 2);
const plan::DataType kD38 = MathType(plan::DataType::DECIMAL, 38, 10);
const plan::DataType kBool = MathType(plan::DataType::BOOLEAN);

struct MathInput {
  type::RowType row_type;
  std::shared_ptr<arrow::RecordBatch> batch;
};

const MathInput& Input() {
  static const MathInput input = [] {
    MathInput in;
    const std::vector<plan::DataType> types = {kI64, kF64, kD10, kD38, kBool};
    for (size_t i = 0; i < types.size(); ++i) {
      std::string name = "c";
      name += std::to_string(i);
      in.row_type.push_back(type::Field{name, *type::FromProto(types[i])});
    }
    arrow::Int64Builder i64;
    arrow::DoubleBuilder f64;
    arrow::Decimal128Builder d10(arrow::decimal128(10, 2));
    arrow::Decimal128Builder d38(arrow::decimal128(38, 10));
    arrow::BooleanBuilder b;
    arrow::Int8Builder kinds;
    uint64_t state = 42;
    for (int64_t r = 0; r < kRows; ++r) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      const int64_t v = static_cast<int64_t>(state >> 20) - (int64_t{1} << 42);
      if (r % 16 == 15) {
        (void)i64.AppendNull();
        (void)f64.AppendNull();
        (void)d10.AppendNull();
        (void)d38.AppendNull();
        (void)b.AppendNull();
      } else {
        (void)i64.Append(v);
        (void)f64.Append(static_cast<double>(v) / 1000.0);
        (void)d10.Append(arrow::Decimal128(v % 10000000000LL));
        (void)d38.Append(arrow::Decimal128(v).IncreaseScaleBy(12));
        (void)b.Append(((state >> 7) & 1) != 0);
      }
      (void)kinds.Append(0);
    }
    std::vector<std::shared_ptr<arrow::Array>> columns(6);
    (void)i64.Finish(&columns[0]);
    (void)f64.Finish(&columns[1]);
    (void)d10.Finish(&columns[2]);
    (void)d38.Finish(&columns[3]);
    (void)b.Finish(&columns[4]);
    (void)kinds.Finish(&columns[5]);
    in.batch = arrow::RecordBatch::Make(type::ToArrowSchema(in.row_type), kRows, columns);
    return in;
  }();
  return input;
}

void RunExpression(benchmark::State& state, const plan::Expr& expr) {
  const MathInput& in = Input();
  static const plan::SessionOptions session;
  expression::CompileContext ctx{in.row_type, session, arrow::default_memory_pool()};
  auto compiled = expression::Compile(expr, ctx);
  if (!compiled.ok()) {
    state.SkipWithError(compiled.status().ToString().c_str());
    return;
  }
  for (auto _ : state) {
    auto result = (*compiled)->Evaluate(*in.batch, expression::Selection{});
    if (!result.ok()) {
      state.SkipWithError(result.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(*result);
  }
  state.SetItemsProcessed(state.iterations() * kRows);
}

void BM_AbsBigint(benchmark::State& s) {
  RunExpression(s, MathCall("ABS", kI64, {MathRef(0, kI64)}));
}
void BM_AbsDouble(benchmark::State& s) {
  RunExpression(s, MathCall("ABS", kF64, {MathRef(1, kF64)}));
}
void BM_AbsDecimal38(benchmark::State& s) {
  RunExpression(s, MathCall("ABS", kD38, {MathRef(3, kD38)}));
}
void BM_SignDouble(benchmark::State& s) {
  RunExpression(s, MathCall("SIGN", kF64, {MathRef(1, kF64)}));
}
void BM_FloorDouble(benchmark::State& s) {
  RunExpression(s, MathCall("FLOOR", kF64, {MathRef(1, kF64)}));
}
void BM_RoundDecimal10(benchmark::State& s) {
  RunExpression(s, MathCall("ROUND", MathType(plan::DataType::DECIMAL, 10, 1),
                            {MathRef(2, kD10), MathIntLit(1)}));
}
void BM_RoundBigint(benchmark::State& s) {
  RunExpression(s, MathCall("ROUND", kI64, {MathRef(0, kI64), MathIntLit(-2)}));
}
void BM_RoundDecimal38(benchmark::State& s) {
  RunExpression(s, MathCall("ROUND", MathType(plan::DataType::DECIMAL, 31, 2),
                            {MathRef(3, kD38), MathIntLit(2)}));
}
void BM_TruncateDecimal10(benchmark::State& s) {
  RunExpression(s, MathCall("TRUNCATE", MathType(plan::DataType::DECIMAL, 10, 1),
                            {MathRef(2, kD10), MathIntLit(1)}));
}
void BM_Degrees(benchmark::State& s) {
  RunExpression(s, MathCall("DEGREES", kF64, {MathRef(1, kF64)}));
}
void BM_RadiansDecimal10(benchmark::State& s) {
  RunExpression(s, MathCall("RADIANS", kF64, {MathRef(2, kD10)}));
}
void BM_Sqrt(benchmark::State& s) {
  RunExpression(s, MathCall("POWER", kF64, {MathRef(1, kF64), MathDoubleLit(0.5)}));
}
void BM_PowerTwo(benchmark::State& s) {
  RunExpression(s, MathCall("POWER", kF64, {MathRef(1, kF64), MathDoubleLit(2.0)}));
}
void BM_Hex(benchmark::State& s) {
  RunExpression(s, MathCall("HEX", MathType(plan::DataType::VARCHAR), {MathRef(0, kI64)}));
}
void BM_Bin(benchmark::State& s) {
  RunExpression(s, MathCall("BIN", MathType(plan::DataType::VARCHAR), {MathRef(0, kI64)}));
}
void BM_If(benchmark::State& s) {
  RunExpression(s, MathCall("IF", kF64,
                            {MathRef(4, kBool), MathRef(1, kF64),
                             MathCall("ABS", kF64, {MathRef(1, kF64)})}));
}

BENCHMARK(BM_AbsBigint);
BENCHMARK(BM_AbsDouble);
BENCHMARK(BM_AbsDecimal38);
BENCHMARK(BM_SignDouble);
BENCHMARK(BM_FloorDouble);
BENCHMARK(BM_RoundDecimal10);
BENCHMARK(BM_RoundBigint);
BENCHMARK(BM_RoundDecimal38);
BENCHMARK(BM_TruncateDecimal10);
BENCHMARK(BM_Degrees);
BENCHMARK(BM_RadiansDecimal10);
BENCHMARK(BM_Sqrt);
BENCHMARK(BM_PowerTwo);
BENCHMARK(BM_Hex);
BENCHMARK(BM_Bin);
BENCHMARK(BM_If);

}  // namespace
}  // namespace streamfusion
