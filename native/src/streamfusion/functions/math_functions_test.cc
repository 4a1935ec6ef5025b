#include "streamfusion/expression/test_util.h"

namespace streamfusion::expression {
namespace {

using namespace testing;  // NOLINT

TEST(MathFunctionsTest, Placeholder) {
  auto b = MakeBatch({Int()}, {Ints({-3, std::nullopt})});
  EXPECT_EQ(EvalShow(Call("ABS", Int(), {Ref(0, Int())}), b), "[3, null]");
}

}  // namespace
}  // namespace streamfusion::expression
