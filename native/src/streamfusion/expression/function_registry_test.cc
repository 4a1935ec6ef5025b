#include "streamfusion/expression/function_registry.h"

#include <cctype>
#include <set>

#include "gtest/gtest.h"
#include "streamfusion/expression/rowwise.h"

namespace streamfusion::expression {
namespace {

TEST(FunctionRegistryTest, EveryFunctionHasANameSignatureDocAndFactory) {
  const auto& functions = FunctionRegistry::Instance().functions();
  ASSERT_FALSE(functions.empty());
  std::set<std::string> names;
  for (const auto& f : functions) {
    EXPECT_FALSE(f.name.empty());
    EXPECT_TRUE(names.insert(f.name).second) << f.name << " registered twice";
    for (char c : f.name) {
      EXPECT_FALSE(std::islower(static_cast<unsigned char>(c))) << f.name << " is not upper case";
    }
    EXPECT_FALSE(f.signature.empty()) << f.name;
    EXPECT_FALSE(f.doc.empty()) << f.name;
    EXPECT_NE(f.factory, nullptr) << f.name;
    EXPECT_EQ(FunctionRegistry::Instance().Find(f.name), &f);
  }
}

TEST(FunctionRegistryTest, UnknownFunctionIsUnsupportedWithItsName) {
  EXPECT_EQ(FunctionRegistry::Instance().Find("NO_SUCH_FUNCTION"), nullptr);
  plan::Call call;
  call.set_function("NO_SUCH_FUNCTION");
  type::RowType input;
  plan::SessionOptions session;
  CompileContext ctx{input, session, arrow::default_memory_pool()};
  auto result = CompileRegisteredCall(call, type::LogicalType{}, ctx);
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(result.status().IsNotImplemented());
  EXPECT_NE(result.status().message().find("Function NO_SUCH_FUNCTION is not supported natively"),
            std::string::npos);
}

TEST(RowwiseTest, StringWriterKeepsTheRequestedType) {
  for (const auto& type : {arrow::utf8(), arrow::binary()}) {
    StringWriter out(type, arrow::default_memory_pool());
    ASSERT_TRUE(out.Reserve(2).ok());
    ASSERT_TRUE(out.Append("ab").ok());
    ASSERT_TRUE(out.AppendNull().ok());
    auto array = out.Finish();
    ASSERT_TRUE(array.ok());
    EXPECT_TRUE((*array)->type()->Equals(*type));
    EXPECT_EQ((*array)->length(), 2);
    EXPECT_EQ((*array)->null_count(), 1);
  }
}

}  // namespace
}  // namespace streamfusion::expression
