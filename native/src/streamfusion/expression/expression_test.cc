#include "streamfusion/expression/test_util.h"

namespace streamfusion::expression {
namespace {

using namespace testing;  // NOLINT

TEST(ExpressionTest, InputRefAndPlus) {
  auto b = MakeBatch({Int(), Int()}, {Ints({1, std::nullopt, 2147483647}), Ints({2, 3, 1})});
  EXPECT_EQ(EvalShow(Call("PLUS", Int(), {Ref(0, Int()), Ref(1, Int())}), b),
            "[3, null, -2147483648]");
}

}  // namespace
}  // namespace streamfusion::expression
