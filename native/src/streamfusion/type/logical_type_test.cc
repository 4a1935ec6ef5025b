#include "streamfusion/type/logical_type.h"

#include <gtest/gtest.h>

namespace streamfusion::type {
namespace {

TEST(LogicalTypeTest, FromProtoAndArrowMapping) {
  plan::DataType proto;
  proto.set_kind(plan::DataType::DECIMAL);
  proto.set_precision(38);
  proto.set_scale(10);
  proto.set_nullable(false);
  auto type = FromProto(proto).ValueOrDie();
  EXPECT_EQ(type.ToString(), "DECIMAL(38, 10) NOT NULL");
  EXPECT_TRUE(ToArrow(type)->Equals(arrow::decimal128(38, 10)));

  plan::DataType ts;
  ts.set_kind(plan::DataType::TIMESTAMP);
  ts.set_precision(9);
  auto ts_type = FromProto(ts).ValueOrDie();
  EXPECT_FALSE(ts_type.IsCompactTimestamp());
  EXPECT_EQ(ToArrow(ts_type)->id(), arrow::Type::STRUCT);
  ts.set_precision(3);
  EXPECT_EQ(ToArrow(FromProto(ts).ValueOrDie())->id(), arrow::Type::TIMESTAMP);
}

TEST(LogicalTypeTest, RejectsDecimalPrecisionOutOfRange) {
  plan::DataType proto;
  proto.set_kind(plan::DataType::DECIMAL);
  proto.set_precision(39);
  EXPECT_FALSE(FromProto(proto).ok());
}

TEST(LogicalTypeTest, SchemaEndsWithRowKind) {
  RowType row{{"a", LogicalType{TypeKind::kInt}}, {"b", LogicalType{TypeKind::kVarChar}}};
  auto schema = ToArrowSchema(row);
  ASSERT_EQ(schema->num_fields(), 3);
  EXPECT_EQ(schema->field(2)->name(), kRowKindColumn);
  EXPECT_TRUE(schema->field(2)->type()->Equals(arrow::int8()));
}

}  // namespace
}  // namespace streamfusion::type
