// The word-at-a-time and fast-path kernels against row-by-row references: batches longer than
// one 64-bit word with a ragged tail, with and without NULLs, sliced at offsets that are not
// byte aligned, and under narrowed selections.

#include <functional>

#include "streamfusion/expression/test_util.h"
#include "streamfusion/operators/calc/calc_operator.h"

namespace streamfusion::expression {
namespace {

using namespace testing;  // NOLINT

constexpr int kRows = 150;

std::optional<bool> Tri(int i, int salt, bool with_nulls) {
  const int v = (i * 7 + salt * 13 + (i / 5)) % 3;
  if (v == 2) return with_nulls ? std::nullopt : std::optional<bool>(i % 2 == 0);
  return v == 1;
}

std::string ShowOpt(const std::vector<std::optional<bool>>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) out += ", ";
    out += v[i] ? (*v[i] ? "true" : "false") : "null";
  }
  return out + "]";
}

// A batch of two BOOLEAN columns sliced by `offset` rows.
TestBatch BoolBatch(bool with_nulls, int offset, OptB* a, OptB* b) {
  OptB x, y;
  for (int i = 0; i < kRows; ++i) {
    x.push_back(Tri(i, 1, with_nulls));
    y.push_back(Tri(i, 2, with_nulls));
  }
  auto batch = MakeBatch({Bool(), Bool()}, {Bools(x), Bools(y)});
  batch.batch = batch.batch->Slice(offset);
  a->assign(x.begin() + offset, x.end());
  b->assign(y.begin() + offset, y.end());
  return batch;
}

TEST(VectorizedKernelsTest, JunctionsAndPredicatesMatchThreeValuedLogic) {
  for (bool with_nulls : {false, true}) {
    for (int offset : {0, 3, 8}) {
      OptB a, b;
      auto batch = BoolBatch(with_nulls, offset, &a, &b);
      OptB and_expected, or_expected, not_expected, is_null, is_true, is_not_false;
      for (size_t i = 0; i < a.size(); ++i) {
        auto x = a[i], y = b[i];
        if ((x && !*x) || (y && !*y)) {
          and_expected.push_back(false);
        } else if (x && y) {
          and_expected.push_back(true);
        } else {
          and_expected.push_back(std::nullopt);
        }
        if ((x && *x) || (y && *y)) {
          or_expected.push_back(true);
        } else if (x && y) {
          or_expected.push_back(false);
        } else {
          or_expected.push_back(std::nullopt);
        }
        not_expected.push_back(x ? std::optional<bool>(!*x) : std::nullopt);
        is_null.push_back(!x.has_value());
        is_true.push_back(x && *x);
        is_not_false.push_back(!(x && !*x));
      }
      SCOPED_TRACE(std::string(with_nulls ? "nulls" : "no nulls") + " offset " +
                   std::to_string(offset));
      auto ra = Ref(0, Bool()), rb = Ref(1, Bool());
      EXPECT_EQ(EvalShow(Call("AND", Bool(), {ra, rb}), batch), ShowOpt(and_expected));
      EXPECT_EQ(EvalShow(Call("OR", Bool(), {ra, rb}), batch), ShowOpt(or_expected));
      EXPECT_EQ(EvalShow(Call("NOT", Bool(), {ra}), batch), ShowOpt(not_expected));
      EXPECT_EQ(EvalShow(Call("IS_NULL", Bool(), {ra}), batch), ShowOpt(is_null));
      EXPECT_EQ(EvalShow(Call("IS_TRUE", Bool(), {ra}), batch), ShowOpt(is_true));
      EXPECT_EQ(EvalShow(Call("IS_NOT_FALSE", Bool(), {ra}), batch), ShowOpt(is_not_false));
    }
  }
}

TEST(VectorizedKernelsTest, AndEvaluatesRightOnlyWhereLeftIsNotFalse) {
  // x <> 0 AND 10 / x > 1: the division must not run (nor fail) where x = 0, over many words.
  OptI x;
  std::string expected = "[";
  for (int i = 0; i < kRows; ++i) {
    if (i % 11 == 3) {
      x.push_back(std::nullopt);
    } else {
      x.push_back(i % 4 == 0 ? 0 : i % 9 - 4);
    }
    if (i) expected += ", ";
    if (!x.back()) {
      expected += "null";  // NULL <> 0 is NULL, and so is 10 / NULL
    } else {
      expected += (*x.back() == 0) ? "false" : (10 / *x.back() > 1 ? "true" : "false");
    }
  }
  auto batch = MakeBatch({Int()}, {Ints(x)});
  auto e = Call("AND", Bool(),
                {Call("NOT_EQUALS", Bool(), {Ref(0, Int()), IntLit(0)}),
                 Call("GREATER_THAN", Bool(),
                      {Call("DIVIDE", Int(), {IntLit(10), Ref(0, Int())}), IntLit(1)})});
  EXPECT_EQ(EvalShow(e, batch), expected + "]");
}

TEST(VectorizedKernelsTest, IntegralSearchMatchesRanges) {
  for (bool with_nulls : {false, true}) {
    for (int offset : {0, 5}) {
      OptL v;
      for (int i = 0; i < kRows; ++i) {
        if (with_nulls && i % 7 == 2) {
          v.push_back(std::nullopt);
        } else {
          v.push_back(i - 60);
        }
      }
      auto batch = MakeBatch({BigInt()}, {Longs(v)});
      batch.batch = batch.batch->Slice(offset);
      for (auto null_as : {plan::Sarg::UNKNOWN, plan::Sarg::IS_TRUE, plan::Sarg::IS_FALSE}) {
        // SEARCH(v, Sarg[(-50..-40], 1, 5, [70..+inf), (-inf..-55)]) with INT bounds.
        auto e = Call("SEARCH", Bool(), {Ref(0, BigInt())});
        auto* sarg = e.mutable_call()->mutable_sarg();
        sarg->set_null_as(null_as);
        auto add = [&](plan::SargRange::BoundType lt, int64_t lo, plan::SargRange::BoundType ut,
                       int64_t hi) {
          auto* r = sarg->add_ranges();
          r->set_lower_type(lt);
          *r->mutable_lower() = IntLiteral(Int(), lo);
          r->set_upper_type(ut);
          *r->mutable_upper() = IntLiteral(Int(), hi);
        };
        add(plan::SargRange::OPEN, -50, plan::SargRange::CLOSED, -40);
        add(plan::SargRange::CLOSED, 1, plan::SargRange::CLOSED, 1);
        add(plan::SargRange::CLOSED, 5, plan::SargRange::CLOSED, 5);
        add(plan::SargRange::CLOSED, 70, plan::SargRange::UNBOUNDED, 0);
        add(plan::SargRange::UNBOUNDED, 0, plan::SargRange::OPEN, -55);
        OptB expected;
        for (size_t i = offset; i < v.size(); ++i) {
          if (!v[i]) {
            expected.push_back(null_as == plan::Sarg::UNKNOWN
                                   ? std::nullopt
                                   : std::optional<bool>(null_as == plan::Sarg::IS_TRUE));
            continue;
          }
          int64_t x = *v[i];
          expected.push_back((x > -50 && x <= -40) || x == 1 || x == 5 || x >= 70 || x < -55);
        }
        SCOPED_TRACE(std::to_string(offset) + " " + std::to_string(null_as));
        EXPECT_EQ(EvalShow(e, batch), ShowOpt(expected));
      }
    }
  }
}

TEST(VectorizedKernelsTest, ComparisonsOverRaggedTail) {
  OptL x, y;
  OptB lt, ne;
  for (int i = 0; i < 77; ++i) {
    x.push_back(i % 5);
    y.push_back(i % 3 == 0 ? std::optional<int64_t>() : std::optional<int64_t>(i % 4));
    lt.push_back(y.back() ? std::optional<bool>(*x.back() < *y.back()) : std::nullopt);
    ne.push_back(y.back() ? std::optional<bool>(*x.back() != *y.back()) : std::nullopt);
  }
  auto batch = MakeBatch({BigInt(), BigInt()}, {Longs(x), Longs(y)});
  EXPECT_EQ(EvalShow(Call("LESS_THAN", Bool(), {Ref(0, BigInt()), Ref(1, BigInt())}), batch),
            ShowOpt(lt));
  EXPECT_EQ(EvalShow(Call("NOT_EQUALS", Bool(), {Ref(0, BigInt()), Ref(1, BigInt())}), batch),
            ShowOpt(ne));
}

TEST(VectorizedKernelsTest, IntegralToDecimalAndExactTimes) {
  auto b =
      MakeBatch({Int(), BigInt()},
                {Ints({999, 1000, -1000, std::nullopt, 2147483647}),
                 Longs({9223372036854775807LL, -9223372036854775807LL - 1, 12, std::nullopt, -5})});
  // Precision check after scaling (DECIMAL(5, 2) holds |x| < 1000).
  EXPECT_EQ(EvalShow(Call("CAST", Dec(5, 2), {Ref(0, Int())}), b),
            "[999.00, null, null, null, null]");
  // BIGINT extremes scaled past 64 bits take the exact path.
  EXPECT_EQ(EvalShow(Call("CAST", Dec(38, 2), {Ref(1, BigInt())}), b),
            "[9223372036854775807.00, -9223372036854775808.00, 12.00, null, -5.00]");
  EXPECT_EQ(EvalShow(Call("CAST", Dec(19, 0), {Ref(1, BigInt())}), b),
            "[9223372036854775807, -9223372036854775808, 12, null, -5]");
  // DECIMAL(18, 2) * DECIMAL(2, 1) = DECIMAL(21, 3), and an overflowing DECIMAL(4, 3).
  auto price = Call("CAST", Dec(18, 2), {Ref(0, Int())});
  auto half = Lit(DecLiteral(Dec(2, 1), 15));
  EXPECT_EQ(EvalShow(Call("TIMES", Dec(21, 3), {price, half}), b),
            "[1498.500, 1500.000, -1500.000, null, 3221225470.500]");
  EXPECT_EQ(EvalShow(Call("TIMES", Dec(6, 3), {price, half}), b), "[null, null, null, null, null]");
  auto small = Call("CAST", Dec(3, 2), {IntLit(1)});
  EXPECT_EQ(EvalShow(Call("TIMES", Dec(6, 3), {small, half}), b),
            "[1.500, 1.500, 1.500, 1.500, 1.500]");
}

TEST(VectorizedKernelsTest, CalcFilterGathersSlicedColumnsWithNulls) {
  OptL ids;
  OptS names;
  std::string expected_ids = "[", expected_names = "[", expected_kinds = "[";
  const int offset = 3;
  for (int i = 0; i < kRows; ++i) {
    ids.push_back(i % 13 == 0 ? std::optional<int64_t>() : std::optional<int64_t>(i));
    names.push_back(i % 6 == 0 ? std::optional<std::string>()
                               : std::optional<std::string>("n" + std::to_string(i)));
    if (i >= offset && ids.back() && *ids.back() % 3 != 0) {
      if (expected_ids.size() > 1) {
        expected_ids += ", ";
        expected_names += ", ";
        expected_kinds += ", ";
      }
      expected_ids += std::to_string(i);
      expected_names += names.back() ? *names.back() : "null";
      expected_kinds += std::to_string(i % 4);
    }
  }
  auto b = MakeBatch({BigInt(), VarChar()}, {Longs(ids), Strings(names)});
  b.batch = b.batch->Slice(offset);
  plan::CalcNode node;
  *node.mutable_condition() =
      Call("NOT_EQUALS", Bool(), {Call("MOD", Int(), {Ref(0, BigInt()), IntLit(3)}), IntLit(0)});
  *node.add_projections() = Ref(0, BigInt());
  *node.add_projections() = Ref(1, VarChar());
  plan::SessionOptions session;
  auto op = *operators::CalcOperator::Make(node, b.row_type, session, arrow::default_memory_pool());
  auto out = op->Process(b.batch);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_TRUE((*out)->ValidateFull().ok());
  EXPECT_EQ(Show((*out)->column(0)), expected_ids + "]");
  EXPECT_EQ(Show((*out)->column(1)), expected_names + "]");
  EXPECT_EQ(Show((*out)->column(2)), expected_kinds + "]");
}

}  // namespace
}  // namespace streamfusion::expression
