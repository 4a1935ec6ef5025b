#pragma once

// Tiny builders for expression tests: plan::Expr protos and Arrow batches from initializer lists.

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "arrow/api.h"
#include "gtest/gtest.h"
#include "streamfusion/expression/expression.h"
#include "streamfusion/type/logical_type.h"

namespace streamfusion::expression::testing {

inline plan::DataType T(plan::DataType::Kind kind, int precision = 0, int scale = 0,
                        int length = 0) {
  plan::DataType t;
  t.set_kind(kind);
  t.set_nullable(true);
  t.set_precision(precision);
  t.set_scale(scale);
  t.set_length(length);
  return t;
}
inline plan::DataType Int() {
  return T(plan::DataType::INT);
}
inline plan::DataType BigInt() {
  return T(plan::DataType::BIGINT);
}
inline plan::DataType Double() {
  return T(plan::DataType::DOUBLE);
}
inline plan::DataType Bool() {
  return T(plan::DataType::BOOLEAN);
}
inline plan::DataType Dec(int p, int s) {
  return T(plan::DataType::DECIMAL, p, s);
}
inline plan::DataType VarChar(int n = std::numeric_limits<int32_t>::max()) {
  return T(plan::DataType::VARCHAR, 0, 0, n);
}

inline plan::Expr Ref(int index, const plan::DataType& type) {
  plan::Expr e;
  *e.mutable_type() = type;
  e.set_input_ref(index);
  return e;
}

inline plan::Expr Call(const std::string& fn, const plan::DataType& type,
                       std::vector<plan::Expr> operands) {
  plan::Expr e;
  *e.mutable_type() = type;
  e.mutable_call()->set_function(fn);
  for (auto& o : operands) *e.mutable_call()->add_operands() = std::move(o);
  return e;
}

inline plan::Literal IntLiteral(const plan::DataType& type, int64_t v) {
  plan::Literal l;
  *l.mutable_type() = type;
  l.set_int_value(v);
  return l;
}
inline plan::Expr Lit(const plan::Literal& l) {
  plan::Expr e;
  *e.mutable_type() = l.type();
  *e.mutable_literal() = l;
  return e;
}
inline plan::Expr IntLit(int64_t v, const plan::DataType& type = Int()) {
  return Lit(IntLiteral(type, v));
}
inline plan::Expr DoubleLit(double v) {
  plan::Literal l;
  *l.mutable_type() = Double();
  l.set_double_value(v);
  return Lit(l);
}
inline plan::Expr StrLit(const std::string& v, const plan::DataType& type = VarChar()) {
  plan::Literal l;
  *l.mutable_type() = type;
  l.set_string_value(v);
  return Lit(l);
}
inline plan::Expr NullLit(const plan::DataType& type) {
  plan::Literal l;
  *l.mutable_type() = type;
  l.set_is_null(true);
  return Lit(l);
}
inline plan::Literal DecLiteral(const plan::DataType& type, __int128 unscaled) {
  plan::Literal l;
  *l.mutable_type() = type;
  std::string bytes(16, '\0');
  for (int i = 0; i < 16; ++i) {
    bytes[15 - i] = static_cast<char>(static_cast<unsigned __int128>(unscaled) >> (8 * i));
  }
  l.set_decimal_unscaled(bytes);
  return l;
}

inline __int128 Dec128(const std::string& digits) {
  __int128 v = 0;
  bool neg = !digits.empty() && digits[0] == '-';
  for (size_t i = neg ? 1 : 0; i < digits.size(); ++i) v = v * 10 + (digits[i] - '0');
  return neg ? -v : v;
}

template <typename Builder, typename V>
std::shared_ptr<arrow::Array> BuildArray(std::shared_ptr<arrow::DataType> type,
                                         const std::vector<std::optional<V>>& values) {
  Builder builder(type, arrow::default_memory_pool());
  for (const auto& v : values) {
    if (v) {
      EXPECT_TRUE(builder.Append(*v).ok());
    } else {
      EXPECT_TRUE(builder.AppendNull().ok());
    }
  }
  std::shared_ptr<arrow::Array> out;
  EXPECT_TRUE(builder.Finish(&out).ok());
  return out;
}

using OptI = std::vector<std::optional<int32_t>>;
using OptL = std::vector<std::optional<int64_t>>;
using OptD = std::vector<std::optional<double>>;
using OptS = std::vector<std::optional<std::string>>;
using OptB = std::vector<std::optional<bool>>;

inline std::shared_ptr<arrow::Array> Ints(const OptI& v) {
  return BuildArray<arrow::Int32Builder>(arrow::int32(), v);
}
inline std::shared_ptr<arrow::Array> Longs(const OptL& v) {
  return BuildArray<arrow::Int64Builder>(arrow::int64(), v);
}
inline std::shared_ptr<arrow::Array> Doubles(const OptD& v) {
  return BuildArray<arrow::DoubleBuilder>(arrow::float64(), v);
}
inline std::shared_ptr<arrow::Array> Strings(const OptS& v) {
  return BuildArray<arrow::StringBuilder>(arrow::utf8(), v);
}
inline std::shared_ptr<arrow::Array> Bools(const OptB& v) {
  return BuildArray<arrow::BooleanBuilder>(arrow::boolean(), v);
}
inline std::shared_ptr<arrow::Array> Decimals(int p, int s,
                                              const std::vector<std::optional<std::string>>& v) {
  arrow::Decimal128Builder builder(arrow::decimal128(p, s));
  for (const auto& x : v) {
    if (x) {
      __int128 u = Dec128(*x);
      EXPECT_TRUE(
          builder.Append(arrow::Decimal128(static_cast<int64_t>(u >> 64), static_cast<uint64_t>(u)))
              .ok());
    } else {
      EXPECT_TRUE(builder.AppendNull().ok());
    }
  }
  std::shared_ptr<arrow::Array> out;
  EXPECT_TRUE(builder.Finish(&out).ok());
  return out;
}

// A batch of `columns` with the given Flink types plus a "$row_kind" column of zeros.
struct TestBatch {
  type::RowType row_type;
  std::shared_ptr<arrow::RecordBatch> batch;
};

inline TestBatch MakeBatch(const std::vector<plan::DataType>& types,
                           const std::vector<std::shared_ptr<arrow::Array>>& columns) {
  TestBatch out;
  for (size_t i = 0; i < types.size(); ++i) {
    out.row_type.push_back(type::Field{"c" + std::to_string(i), *type::FromProto(types[i])});
  }
  int64_t n = columns.empty() ? 0 : columns[0]->length();
  std::vector<std::shared_ptr<arrow::Array>> all = columns;
  arrow::Int8Builder kinds;
  for (int64_t i = 0; i < n; ++i) EXPECT_TRUE(kinds.Append(static_cast<int8_t>(i % 4)).ok());
  std::shared_ptr<arrow::Array> kind_array;
  EXPECT_TRUE(kinds.Finish(&kind_array).ok());
  all.push_back(kind_array);
  out.batch = arrow::RecordBatch::Make(type::ToArrowSchema(out.row_type), n, all);
  return out;
}

// The session of the tests: expected values were established on OpenJDK 17.
inline const plan::SessionOptions& TestSession() {
  static const plan::SessionOptions session = [] {
    plan::SessionOptions s;
    s.set_java_feature_version(17);
    return s;
  }();
  return session;
}

inline Result<std::shared_ptr<arrow::Array>> Eval(const plan::Expr& expr, const TestBatch& batch) {
  const plan::SessionOptions& session = TestSession();
  CompileContext ctx{batch.row_type, session, arrow::default_memory_pool()};
  SF_ASSIGN_OR_RAISE(auto compiled, Compile(expr, ctx));
  SF_ASSIGN_OR_RAISE(auto result, compiled->Evaluate(*batch.batch, Selection{}));
  if (!result->type()->Equals(*type::ToArrow(compiled->type()))) {
    return InternalError("Result Arrow type ", result->type()->ToString(), " differs from ",
                         type::ToArrow(compiled->type())->ToString());
  }
  SF_RETURN_NOT_OK(result->ValidateFull());
  return result;
}

// Renders an array as "[v, null, ...]" using Arrow's formatting of scalars.
inline std::string Show(const std::shared_ptr<arrow::Array>& array) {
  std::string out = "[";
  for (int64_t i = 0; i < array->length(); ++i) {
    if (i) out += ", ";
    if (array->IsNull(i)) {
      out += "null";
      continue;
    }
    auto scalar = *array->GetScalar(i);
    if (array->type_id() == arrow::Type::DOUBLE) {
      double d = static_cast<const arrow::DoubleScalar&>(*scalar).value;
      char buf[64];
      std::snprintf(buf, sizeof(buf), "%.17g", d);
      out += std::isnan(d) ? "nan" : buf;
    } else {
      out += scalar->ToString();
    }
  }
  return out + "]";
}

inline std::string EvalShow(const plan::Expr& expr, const TestBatch& batch) {
  auto result = Eval(expr, batch);
  if (!result.ok()) return "ERROR: " + result.status().ToString();
  return Show(*result);
}

}  // namespace streamfusion::expression::testing
