// Micro-benchmarks of the native Calc path that `./sf bench boundary` measures from the JVM:
// BinaryRowData images -> Arrow (decode), the Calc (filter + projections), Arrow -> images
// (encode), each alone and all three together, on batches of 4096 rows. The plan is the calc
// benchmark's (streamfusion-bench CalcBenchmark.FILTER_PROJECT), built here as Flink's planner
// sends it:
//
//   SELECT id, id * 3 + 7 AS a, CAST(v AS DECIMAL(18, 2)) * 1.5 AS price,
//          CASE WHEN id % 10 = 0 THEN 'ten' ELSE 'other' END AS tag,
//          v % 1000 IN (1, 5, 7) AS hot
//   FROM src (id BIGINT, v INT) WHERE id % 4 <> 0 AND v > 100
//
// Every benchmark reports items = input rows, so "items_per_second" inverts to ns per input row.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/api.h"
#include "benchmark/benchmark.h"
#include "streamfusion/batch/binary_row.h"
#include "streamfusion/plan.pb.h"
#include "streamfusion/plan/pipeline.h"

namespace streamfusion {
namespace {

constexpr int64_t kBatchRows = 4096;

plan::DataType Type(plan::DataType::Kind kind, bool nullable = true, int precision = 0,
                    int scale = 0, int length = 0) {
  plan::DataType t;
  t.set_kind(kind);
  t.set_nullable(nullable);
  t.set_precision(precision);
  t.set_scale(scale);
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

plan::Literal IntLiteral(int64_t v) {
  plan::Literal l;
  *l.mutable_type() = Type(plan::DataType::INT, false);
  l.set_int_value(v);
  return l;
}

plan::Expr Lit(const plan::Literal& l) {
  plan::Expr e;
  *e.mutable_type() = l.type();
  *e.mutable_literal() = l;
  return e;
}

plan::Expr IntLit(int64_t v) {
  return Lit(IntLiteral(v));
}

plan::Expr CharLit(const std::string& v) {
  plan::Literal l;
  *l.mutable_type() = Type(plan::DataType::CHAR, false, 0, 0, static_cast<int>(v.size()));
  l.set_string_value(v);
  return Lit(l);
}

void AddField(plan::RowType* row, const std::string& name, const plan::DataType& type) {
  auto* f = row->add_fields();
  f->set_name(name);
  *f->mutable_type() = type;
}

// The calc benchmark's plan with the types Flink derives (MOD takes its divisor's type,
// DECIMAL(18, 2) * DECIMAL(2, 1) is DECIMAL(21, 3), the CASE of two CHAR literals VARCHAR(5),
// IN a SEARCH over three points).
plan::Plan CalcBenchmarkPlan() {
  const auto bigint = Type(plan::DataType::BIGINT);
  const auto int_t = Type(plan::DataType::INT);
  const auto boolean = Type(plan::DataType::BOOLEAN);
  const auto dec18 = Type(plan::DataType::DECIMAL, true, 18, 2);
  const auto dec21 = Type(plan::DataType::DECIMAL, true, 21, 3);
  const auto tag = Type(plan::DataType::VARCHAR, false, 0, 0, 5);

  plan::Plan p;
  AddField(p.mutable_input_type(), "id", bigint);
  AddField(p.mutable_input_type(), "v", int_t);
  AddField(p.mutable_output_type(), "id", bigint);
  AddField(p.mutable_output_type(), "a", bigint);
  AddField(p.mutable_output_type(), "price", dec21);
  AddField(p.mutable_output_type(), "tag", tag);
  AddField(p.mutable_output_type(), "hot", boolean);

  plan::CalcNode* calc = p.add_operators()->mutable_calc();
  *calc->mutable_condition() = Call(
      "AND", boolean,
      {Call("NOT_EQUALS", boolean, {Call("MOD", int_t, {Ref(0, bigint), IntLit(4)}), IntLit(0)}),
       Call("GREATER_THAN", boolean, {Ref(1, int_t), IntLit(100)})});
  *calc->add_projections() = Ref(0, bigint);
  *calc->add_projections() =
      Call("PLUS", bigint, {Call("TIMES", bigint, {Ref(0, bigint), IntLit(3)}), IntLit(7)});
  plan::Literal one_and_half;
  *one_and_half.mutable_type() = Type(plan::DataType::DECIMAL, false, 2, 1);
  one_and_half.set_decimal_unscaled(std::string(1, '\x0f'));  // 15 * 10^-1
  *calc->add_projections() =
      Call("TIMES", dec21, {Call("CAST", dec18, {Ref(1, int_t)}), Lit(one_and_half)});
  *calc->add_projections() =
      Call("CASE", tag,
           {Call("EQUALS", boolean, {Call("MOD", int_t, {Ref(0, bigint), IntLit(10)}), IntLit(0)}),
            CharLit("ten"), CharLit("other")});
  plan::Expr hot = Call("SEARCH", boolean, {Call("MOD", int_t, {Ref(1, int_t), IntLit(1000)})});
  for (int64_t point : {1, 5, 7}) {
    auto* range = hot.mutable_call()->mutable_sarg()->add_ranges();
    range->set_lower_type(plan::SargRange::CLOSED);
    *range->mutable_lower() = IntLiteral(point);
    range->set_upper_type(plan::SargRange::CLOSED);
    *range->mutable_upper() = IntLiteral(point);
  }
  *calc->add_projections() = std::move(hot);
  return p;
}

// Rows (id, v) = (i + 1, i + 1) like the boundary profile's generator; every `null_every`-th
// row (0: none) has NULL in both fields.
std::shared_ptr<arrow::RecordBatch> InputBatch(const type::RowType& row_type, int64_t first,
                                               int64_t null_every) {
  arrow::Int64Builder ids;
  arrow::Int32Builder vs;
  arrow::Int8Builder kinds;
  for (int64_t i = first; i < first + kBatchRows; ++i) {
    if (null_every > 0 && i % null_every == 0) {
      (void)ids.AppendNull();
      (void)vs.AppendNull();
    } else {
      (void)ids.Append(i + 1);
      (void)vs.Append(static_cast<int32_t>(i + 1));
    }
    (void)kinds.Append(0);
  }
  return arrow::RecordBatch::Make(type::ToArrowSchema(row_type), kBatchRows,
                                  {*ids.Finish(), *vs.Finish(), *kinds.Finish()});
}

struct Fixture {
  std::unique_ptr<plan::Pipeline> pipeline;
  std::shared_ptr<arrow::RecordBatch> input;
  batch::BinaryRowBuffer images;

  explicit Fixture(int64_t null_every) {
    auto made = plan::Pipeline::Make(CalcBenchmarkPlan(), 0);
    if (!made.ok()) throw std::runtime_error(made.status().ToString());
    pipeline = std::move(*made);
    input = InputBatch(pipeline->input_type(), 1000, null_every);
    auto st = batch::EncodeBinaryRows(pipeline->input_type(), *input, &images);
    if (!st.ok()) throw std::runtime_error(st.ToString());
  }
};

void Check(benchmark::State& state, const Status& status) {
  if (!status.ok()) state.SkipWithError(status.ToString().c_str());
}

void BM_Decode(benchmark::State& state) {
  Fixture f(state.range(0));
  for (auto _ : state) {
    auto decoded =
        batch::DecodeBinaryRows(f.pipeline->input_type(), f.images.bytes.data(),
                                f.images.offsets.data(), f.images.num_rows(), f.pipeline->pool());
    if (!decoded.ok()) return Check(state, decoded.status());
    benchmark::DoNotOptimize(*decoded);
  }
  state.SetItemsProcessed(state.iterations() * kBatchRows);
}

void BM_Calc(benchmark::State& state) {
  Fixture f(state.range(0));
  for (auto _ : state) {
    auto output = f.pipeline->Process(f.input);
    if (!output.ok()) return Check(state, output.status());
    benchmark::DoNotOptimize(*output);
  }
  state.SetItemsProcessed(state.iterations() * kBatchRows);
}

void BM_Encode(benchmark::State& state) {
  Fixture f(state.range(0));
  auto output = f.pipeline->Process(f.input);
  if (!output.ok()) return Check(state, output.status());
  batch::BinaryRowBuffer out;
  for (auto _ : state) {
    Check(state, batch::EncodeBinaryRows(f.pipeline->output_type(), **output, &out));
    benchmark::DoNotOptimize(out.bytes.data());
  }
  // Per input row of the Calc, so that the three parts add up to the whole.
  state.SetItemsProcessed(state.iterations() * kBatchRows);
  state.counters["output_rows"] = static_cast<double>((*output)->num_rows());
}

void BM_DecodeCalcEncode(benchmark::State& state) {
  Fixture f(state.range(0));
  batch::BinaryRowBuffer out;
  for (auto _ : state) {
    auto decoded =
        batch::DecodeBinaryRows(f.pipeline->input_type(), f.images.bytes.data(),
                                f.images.offsets.data(), f.images.num_rows(), f.pipeline->pool());
    if (!decoded.ok()) return Check(state, decoded.status());
    auto output = f.pipeline->Process(*decoded);
    if (!output.ok()) return Check(state, output.status());
    Check(state, batch::EncodeBinaryRows(f.pipeline->output_type(), **output, &out));
    benchmark::DoNotOptimize(out.bytes.data());
  }
  state.SetItemsProcessed(state.iterations() * kBatchRows);
}

// Argument: every n-th input row is NULL (0 = no NULLs, the boundary profile's data).
BENCHMARK(BM_Decode)->Arg(0)->Arg(7);
BENCHMARK(BM_Calc)->Arg(0)->Arg(7);
BENCHMARK(BM_Encode)->Arg(0)->Arg(7);
BENCHMARK(BM_DecodeCalcEncode)->Arg(0)->Arg(7);

}  // namespace
}  // namespace streamfusion

BENCHMARK_MAIN();
