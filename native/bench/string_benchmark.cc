// Micro-benchmarks of the native string functions (expression/builtins/string_functions.cc): one
// compiled call evaluated over a batch of 4096 rows per iteration. The input has an ASCII column
// `a` (mixed-case words, 12-28 bytes), a non-ASCII column `u` (accented Latin, Greek, CJK, emoji)
// and a small INT column `n`. "items_per_second" inverts to ns per row.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "arrow/api.h"
#include "benchmark/benchmark.h"
#include "streamfusion/expression/expression.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion {
namespace {

constexpr int64_t kBatchRows = 4096;

plan::DataType Type(plan::DataType::Kind kind) {
  plan::DataType t;
  t.set_kind(kind);
  t.set_nullable(true);
  if (kind == plan::DataType::VARCHAR) t.set_length(std::numeric_limits<int32_t>::max());
  return t;
}

plan::Expr Ref(int index, plan::DataType::Kind kind) {
  plan::Expr e;
  *e.mutable_type() = Type(kind);
  e.set_input_ref(index);
  return e;
}

plan::Expr Str(const std::string& v) {
  plan::Expr e;
  *e.mutable_type() = Type(plan::DataType::VARCHAR);
  *e.mutable_literal()->mutable_type() = e.type();
  e.mutable_literal()->set_string_value(v);
  return e;
}

plan::Expr Int(int64_t v) {
  plan::Expr e;
  *e.mutable_type() = Type(plan::DataType::INT);
  *e.mutable_literal()->mutable_type() = e.type();
  e.mutable_literal()->set_int_value(v);
  return e;
}

plan::Expr Symbol(const std::string& name) {
  plan::Expr e;
  e.mutable_type()->set_kind(plan::DataType::SYMBOL);
  *e.mutable_literal()->mutable_type() = e.type();
  e.mutable_literal()->set_symbol_value(name);
  return e;
}

plan::Expr Call(const std::string& fn, plan::DataType::Kind result,
                std::vector<plan::Expr> operands) {
  plan::Expr e;
  *e.mutable_type() = Type(result);
  e.mutable_call()->set_function(fn);
  for (auto& o : operands) *e.mutable_call()->add_operands() = std::move(o);
  return e;
}

plan::Expr A() {
  return Ref(0, plan::DataType::VARCHAR);
}
plan::Expr U() {
  return Ref(1, plan::DataType::VARCHAR);
}
plan::Expr N() {
  return Ref(2, plan::DataType::INT);
}

struct Input {
  type::RowType row_type;
  std::shared_ptr<arrow::RecordBatch> batch;
};

const Input& TheInput() {
  static const Input input = [] {
    static const char* kWords[] = {"Hello", "world",  "StreamFusion", "native", "Flink",
                                   "SQL",   "column", "Batch",        "string", "kernel"};
    static const char* kUnicode[] = {"Ünïcödé",  "ΟΔΟΣ",   "héllo", "你好世界",
                                     "🎉 party", "Straße", "ÀÉÎÕÜ"};
    arrow::StringBuilder a, u;
    arrow::Int32Builder n;
    for (int64_t i = 0; i < kBatchRows; ++i) {
      std::string ascii =
          std::string(kWords[i % 10]) + " " + kWords[(i / 10) % 10] + " " + std::to_string(i);
      std::string uni = std::string(kUnicode[i % 7]) + " " + kWords[i % 10];
      (void)a.Append(ascii);
      (void)u.Append(uni);
      (void)n.Append(static_cast<int32_t>(i % 7) - 1);
    }
    Input in;
    for (auto [name, kind] :
         {std::pair{"a", plan::DataType::VARCHAR}, std::pair{"u", plan::DataType::VARCHAR},
          std::pair{"n", plan::DataType::INT}}) {
      in.row_type.push_back(type::Field{name, *type::FromProto(Type(kind))});
    }
    arrow::Int8Builder kinds;
    for (int64_t i = 0; i < kBatchRows; ++i) (void)kinds.Append(0);
    in.batch = arrow::RecordBatch::Make(type::ToArrowSchema(in.row_type), kBatchRows,
                                        {*a.Finish(), *u.Finish(), *n.Finish(), *kinds.Finish()});
    return in;
  }();
  return input;
}

void Run(benchmark::State& state, const plan::Expr& expr) {
  const Input& input = TheInput();
  plan::SessionOptions session;
  session.set_default_locale("en-US");
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
    benchmark::DoNotOptimize(result->get());
  }
  state.SetItemsProcessed(state.iterations() * kBatchRows);
}

using K = plan::DataType;

void BM_CharLength(benchmark::State& s) {
  Run(s, Call("CHAR_LENGTH", K::INT, {A()}));
}
void BM_LowerAscii(benchmark::State& s) {
  Run(s, Call("LOWER", K::VARCHAR, {A()}));
}
void BM_UpperAscii(benchmark::State& s) {
  Run(s, Call("UPPER", K::VARCHAR, {A()}));
}
void BM_LowerUnicode(benchmark::State& s) {
  Run(s, Call("LOWER", K::VARCHAR, {U()}));
}
void BM_UpperUnicode(benchmark::State& s) {
  Run(s, Call("UPPER", K::VARCHAR, {U()}));
}
void BM_Trim(benchmark::State& s) {
  Run(s, Call("TRIM", K::VARCHAR, {Symbol("BOTH"), Str(" "), A()}));
}
void BM_TrimChars(benchmark::State& s) {
  Run(s, Call("TRIM", K::VARCHAR, {Symbol("BOTH"), Str("Hes"), A()}));
}
void BM_Ltrim(benchmark::State& s) {
  Run(s, Call("LTRIM", K::VARCHAR, {A()}));
}
void BM_Rtrim(benchmark::State& s) {
  Run(s, Call("RTRIM", K::VARCHAR, {A()}));
}
void BM_Substring(benchmark::State& s) {
  Run(s, Call("SUBSTRING", K::VARCHAR, {A(), Int(3), Int(5)}));
}
void BM_Concat(benchmark::State& s) {
  Run(s, Call("CONCAT", K::VARCHAR, {A(), Str("-"), U()}));
}
void BM_ConcatWs(benchmark::State& s) {
  Run(s, Call("CONCAT_WS", K::VARCHAR, {Str(","), A(), U()}));
}
void BM_Pipes(benchmark::State& s) {
  Run(s, Call("||", K::VARCHAR, {A(), U()}));
}
void BM_Replace(benchmark::State& s) {
  Run(s, Call("REPLACE", K::VARCHAR, {A(), Str("o"), Str("0")}));
}
void BM_Position(benchmark::State& s) {
  Run(s, Call("POSITION", K::INT, {Str("ld"), A()}));
}
void BM_Locate(benchmark::State& s) {
  Run(s, Call("LOCATE", K::INT, {Str("e"), A(), Int(3)}));
}
void BM_Initcap(benchmark::State& s) {
  Run(s, Call("INITCAP", K::VARCHAR, {A()}));
}
void BM_Lpad(benchmark::State& s) {
  Run(s, Call("LPAD", K::VARCHAR, {A(), Int(30), Str("*")}));
}
void BM_Rpad(benchmark::State& s) {
  Run(s, Call("RPAD", K::VARCHAR, {A(), Int(10), Str("ab")}));
}
void BM_Repeat(benchmark::State& s) {
  Run(s, Call("REPEAT", K::VARCHAR, {A(), Int(3)}));
}
void BM_Reverse(benchmark::State& s) {
  Run(s, Call("REVERSE", K::VARCHAR, {U()}));
}
void BM_SplitIndex(benchmark::State& s) {
  Run(s, Call("SPLIT_INDEX", K::VARCHAR, {A(), Str(" "), Int(1)}));
}
void BM_Elt(benchmark::State& s) {
  Run(s, Call("ELT", K::VARCHAR, {N(), A(), U()}));
}
void BM_Ascii(benchmark::State& s) {
  Run(s, Call("ASCII", K::INT, {A()}));
}
void BM_Chr(benchmark::State& s) {
  Run(s, Call("CHR", K::VARCHAR, {N()}));
}
void BM_Md5(benchmark::State& s) {
  Run(s, Call("MD5", K::VARCHAR, {A()}));
}
void BM_Sha1(benchmark::State& s) {
  Run(s, Call("SHA1", K::VARCHAR, {A()}));
}
void BM_Sha256(benchmark::State& s) {
  Run(s, Call("SHA256", K::VARCHAR, {A()}));
}
void BM_Sha2_512(benchmark::State& s) {
  Run(s, Call("SHA2", K::VARCHAR, {A(), Int(512)}));
}
void BM_ToBase64(benchmark::State& s) {
  Run(s, Call("TO_BASE64", K::VARCHAR, {U()}));
}
void BM_FromBase64(benchmark::State& s) {
  Run(s, Call("FROM_BASE64", K::VARCHAR, {Call("TO_BASE64", K::VARCHAR, {U()})}));
}

BENCHMARK(BM_CharLength);
BENCHMARK(BM_LowerAscii);
BENCHMARK(BM_UpperAscii);
BENCHMARK(BM_LowerUnicode);
BENCHMARK(BM_UpperUnicode);
BENCHMARK(BM_Trim);
BENCHMARK(BM_TrimChars);
BENCHMARK(BM_Ltrim);
BENCHMARK(BM_Rtrim);
BENCHMARK(BM_Substring);
BENCHMARK(BM_Concat);
BENCHMARK(BM_ConcatWs);
BENCHMARK(BM_Pipes);
BENCHMARK(BM_Replace);
BENCHMARK(BM_Position);
BENCHMARK(BM_Locate);
BENCHMARK(BM_Initcap);
BENCHMARK(BM_Lpad);
BENCHMARK(BM_Rpad);
BENCHMARK(BM_Repeat);
BENCHMARK(BM_Reverse);
BENCHMARK(BM_SplitIndex);
BENCHMARK(BM_Elt);
BENCHMARK(BM_Ascii);
BENCHMARK(BM_Chr);
BENCHMARK(BM_Md5);
BENCHMARK(BM_Sha1);
BENCHMARK(BM_Sha256);
BENCHMARK(BM_Sha2_512);
BENCHMARK(BM_ToBase64);
BENCHMARK(BM_FromBase64);

}  // namespace
}  // namespace streamfusion
